-- A let-bound i64 stands for its definition in the result type.
-- ==
-- warning: ^$

entry main (n: i64) : [n+1]i64 =
  let m = n + 1
  in iota m
