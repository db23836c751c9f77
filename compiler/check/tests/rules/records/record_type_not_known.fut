-- ==
-- error: Full type of "p" is not known at this point

def set_y p = p with y = 1f32
