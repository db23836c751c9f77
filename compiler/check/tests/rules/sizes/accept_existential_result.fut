-- ==
-- warning: ^$

entry main (n: i64) : ?[m].[m]i64 = iota n
