-- ==
-- error: f32

def f (xs: []i32) = xs[1f32]
