-- ==
-- error: Occurs

def f x = x x
