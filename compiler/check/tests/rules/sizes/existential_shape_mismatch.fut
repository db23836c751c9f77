-- ==
-- error: do not match

def f (n: i64) : ?[m].[m][m]i64 = replicate n (iota (n + 1))
