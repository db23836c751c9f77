-- A named parameter is in scope only in the parameters after it.
-- ==
-- error: Unknown name "n"

def f (xs: [n]i32) (n: i64) = xs
