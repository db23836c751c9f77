-- ==
-- error: Unknown module

def x = 1i32
open x
