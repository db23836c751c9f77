-- ==
-- error: nope

def x = f32.nope 1
