-- The initial value must have the annotated parameter type.
-- ==
-- error: i32.*f32|f32.*i32

def main = loop (acc: i32) = 0.5f32 for i < 3 do acc
