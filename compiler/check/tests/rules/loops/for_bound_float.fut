-- ==
-- error: f32

def main = loop x = 0 for i < 2.0f32 do x + 1
