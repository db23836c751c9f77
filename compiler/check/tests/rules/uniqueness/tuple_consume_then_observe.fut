-- ==
-- error: "xs".*consumed

def f (xs: *[]i32) = (xs with [0] = 1, xs[0])
