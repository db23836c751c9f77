-- ==
-- error: i64.*i32|i32.*i64

def f (n: i32) (xs: [n]f32) = xs
