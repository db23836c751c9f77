-- ==
-- warning: ^$

entry main [n] (xs: [n]i32) = loop (ys: [n]i32) = xs for i < 3 do map (+ 1) ys
