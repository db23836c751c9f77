-- ==
-- error: i32.*f32|f32.*i32

def f = f32.sqrt 4i32
