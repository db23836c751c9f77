-- ==
-- error: Unknown name "k"

def f (xss: [][]i32) = map (\(x: [k]i32) -> x) xss
