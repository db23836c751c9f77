-- ==
-- error: .

def f (xs: []i32) = xs[0, 1]
