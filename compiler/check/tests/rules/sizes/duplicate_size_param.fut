-- ==
-- error: previously defined

def f [n] [n] (xs: [n]i32) = xs
