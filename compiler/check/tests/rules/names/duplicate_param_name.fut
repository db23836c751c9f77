-- ==
-- error: also bound

def f (x: i32) (x: i32) = x
