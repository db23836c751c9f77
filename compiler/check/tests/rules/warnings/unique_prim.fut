-- ==
-- warning: has no effect

def f (x: *i32) = x + 1
