-- ==
-- error: i32.*f32|f32.*i32

def x : i32 = 1f32
