-- ==
-- error: i32

def f (x: i32) = x with [0] = 1
