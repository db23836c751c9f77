-- A parameter size n + 1 met by an unknown size leaves n undetermined.
-- ==
-- error: Cannot apply "bump"

def bump [n] (xs: [n + 1]i64) = n

def main (xs: []i64) = bump (filter (> 0) xs)
