-- ==
-- warning: ^$

entry main (xs: []i32) (n: i64) = xs :> [n]i32
