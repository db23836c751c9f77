-- ==
-- error: .

def f (xs: *[]i32) = xs with [0, 1] = 2
