-- ==
-- warning: ^$

def f (xs: *[]i32) : ([]i32, []i32) = (xs, xs)
