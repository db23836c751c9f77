-- ==
-- error: out of bounds

def x : i16 = -40000
