-- ==
-- error: bool.*i32|i32.*bool

def f (xs: *[]i32) = xs with [0] = true
