-- ==
-- warning: ^$

entry main (n: i64) =
  let xs = iota n
  let xs[0] = 5
  in xs
