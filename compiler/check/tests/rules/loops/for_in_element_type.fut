-- ==
-- error: i32

def main = loop acc = 0i32 for x in [[1i32]] do acc + x
