-- ==
-- error: consumed

def g (a: *[]i32) (b: []i32) = 0i32

def f (xs: *[]i32) = g xs xs
