-- ==
-- error: i32.*f32|f32.*i32

def x = (1i32 : f32)
