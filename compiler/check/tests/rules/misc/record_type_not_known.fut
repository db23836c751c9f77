-- ==
-- error: Full type of.*is not known

def set_y p = p with y = 1f32
