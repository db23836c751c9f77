-- ==
-- error: consum

def f (xss: *[][]i32) = map (\(xs: *[]i32) -> xs with [0] = 1) xss
