-- ==
-- error: bool

def f (a: i32) = a && a
