-- ==
-- error: \+\+\+

def x = 1i32 +++ 2i32
