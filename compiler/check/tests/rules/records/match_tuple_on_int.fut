-- ==
-- error: i32

def f (x: i32) = match x case (a, b) -> a
