-- ==
-- error: array

def main = loop acc = 0 for x in 5i32 do acc + x
