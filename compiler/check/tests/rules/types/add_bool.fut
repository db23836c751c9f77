-- ==
-- error: bool

def x = 1 + true
