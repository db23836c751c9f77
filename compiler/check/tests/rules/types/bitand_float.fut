-- ==
-- error: f32

def f (x: f32) = x & x
