-- ==
-- error: Unknown type "n"

def f [n] (x: n) = x
