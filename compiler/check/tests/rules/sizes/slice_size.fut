-- ==
-- error: do not match

def f [n] (xs: [n]i32) : [n]i32 = xs[1:]
