-- ==
-- error: out of bounds

def x : u8 = 300
