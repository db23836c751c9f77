-- ==
-- error: f32.*i32|i32.*f32

def f = map (+ 1.0f32) [1i32]
