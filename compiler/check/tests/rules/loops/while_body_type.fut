-- ==
-- error: Loop body does not have expected type

def main = loop (i, s) = (0, 0f32) while i < 10 do (i + 1, s > 1)
