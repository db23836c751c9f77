-- ==
-- error: bool

def f (b: bool) = -b
