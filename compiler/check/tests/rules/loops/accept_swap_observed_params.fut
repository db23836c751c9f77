-- Non-consumed loop parameters may swap values.
-- ==
-- warning: ^$

entry main [n] (xs: [n]i32) (ys: [n]i32) =
  loop (a, b) = (xs, ys) for i < 3 do (b, a)
