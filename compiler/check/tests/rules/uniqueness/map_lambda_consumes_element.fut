-- ==
-- error: consum

def f (xss: *[][]i32) = map (\xs -> xs with [0] = 1) xss
