-- ==
-- error: Unknown name "n"

def f (xs: [n]i32) = xs
