-- ==
-- error: do not match

def x = [1i32, 2] : [3]i32
