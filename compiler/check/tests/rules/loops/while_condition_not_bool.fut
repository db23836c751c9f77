-- ==
-- error: bool

def main = loop x = 0i32 while x do x + 1
