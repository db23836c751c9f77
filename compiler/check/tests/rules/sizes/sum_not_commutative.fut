-- Sizes are compared as written: n+m is not m+n.
-- ==
-- error: do not match

def join [n][m] (a: [n]i32) (b: [m]i32) : [m+n]i32 = a ++ b
