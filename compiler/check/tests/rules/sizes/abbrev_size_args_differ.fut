-- ==
-- error: do not match

type vec [n] = [n]f32
def f (x: vec [2]) : vec [3] = x
