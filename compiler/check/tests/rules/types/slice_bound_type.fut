-- ==
-- error: i64

def f (xs: []i32) = xs[0i32:2i32]
