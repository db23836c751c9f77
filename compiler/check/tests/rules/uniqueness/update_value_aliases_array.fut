-- ==
-- error: alias

def f (xs: *[][]i32) = xs with [0] = xs[1]
