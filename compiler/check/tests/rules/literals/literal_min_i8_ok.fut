-- ==
-- accept

def x : i8 = -128
