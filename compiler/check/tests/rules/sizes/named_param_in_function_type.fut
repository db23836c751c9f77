-- ==
-- error: do not match

def f : (n: i64) -> [n]i32 = \m -> replicate (m + 1) 0
