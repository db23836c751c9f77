-- ==
-- error: Loop body does not have expected type

def main = loop (x: i32) = 0 for i < 3 do x > 1
