-- ==
-- error: bool

def f (x: i32) = if x then 1 else 2
