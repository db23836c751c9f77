-- ==
-- error: i32

def f = let x : i32 = 1.0 in x
