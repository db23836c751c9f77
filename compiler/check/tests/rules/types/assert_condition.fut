-- ==
-- error: bool

def f (x: i32) = assert 1 x
