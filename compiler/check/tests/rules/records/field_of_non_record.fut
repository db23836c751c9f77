-- ==
-- error: record|field

def f (x: i32) = x.a
