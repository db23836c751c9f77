-- ==
-- warning: Declaring "i32" as unique has no effect

def f (x: *i32) = x + 1
