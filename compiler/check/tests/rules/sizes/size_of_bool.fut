-- ==
-- error: i64.*bool|bool.*i64

def f (b: bool) (xs: [b]f32) = xs
