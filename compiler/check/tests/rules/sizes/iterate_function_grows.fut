-- ==
-- error: do not match

def f = iterate 3 (\(xs: []i32) -> xs ++ xs) [1]
