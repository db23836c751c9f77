-- ==
-- warning: ^$

entry main (n: i64) =
  loop (a, b) = (replicate n 0i32, replicate n 0i32) for i < n do
    (a with [i] = 1, b with [i] = 2)
