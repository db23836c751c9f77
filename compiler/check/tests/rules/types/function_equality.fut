-- ==
-- error: equality

def f (g: i32 -> i32) = g == g
