-- A negated unsuffixed literal is range-checked too.
-- ==
-- error: out of bounds

def x : u8 = -1
