-- ==
-- error: f32.*i32|i32.*f32

def f (x: i32) : i32 = let y : f32 = x in 0
