-- ==
-- error: do not match

def f = let [n] (xs: [n]i32) = [1, 2, 3] in (xs : [4]i32)
