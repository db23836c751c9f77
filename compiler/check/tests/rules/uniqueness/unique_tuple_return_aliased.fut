-- ==
-- error: aliased to "xs"

def f (xs: []i32) : (*[]i32, i32) = (xs, 1)
