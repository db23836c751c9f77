-- A lambda whose result has a size made inside it cannot be mapped.
-- ==
-- error: .

def main (xs: []i64) = map (\x -> iota x) xs
