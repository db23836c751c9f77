-- ==
-- error: do not match

def f [n][m] (xs: [n][m]i32) : [m][n]i32 = xs
