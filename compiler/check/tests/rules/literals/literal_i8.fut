-- ==
-- error: out of bounds

def x : i8 = 128
