-- ==
-- error: do not match

def f (n: i64) : [n]i64 = 1..<n
