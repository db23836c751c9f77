-- ==
-- warning: ^$

def f (n: i64) : [n + 1]i64 = iota (n + 1)
