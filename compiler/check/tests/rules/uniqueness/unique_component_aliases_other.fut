-- ==
-- error: aliased to some other component

def f (xs: *[]i32) : (*[]i32, []i32) = (xs, xs)
