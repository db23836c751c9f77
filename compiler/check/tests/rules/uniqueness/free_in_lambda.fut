-- ==
-- error: "xs"

def f (xs: *[]i32) = map (\i -> let xs[i] = 0 in i) (iota 3)
