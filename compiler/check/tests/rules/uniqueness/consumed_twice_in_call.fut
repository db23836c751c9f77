-- ==
-- error: consumed

def two (a: *[]i32) (b: *[]i32) = 0i32

def f (xs: *[]i32) = two xs xs
