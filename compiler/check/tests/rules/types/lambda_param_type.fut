-- ==
-- error: f32.*i32|i32.*f32

def f = map (\(x: f32) -> x) [1i32]
