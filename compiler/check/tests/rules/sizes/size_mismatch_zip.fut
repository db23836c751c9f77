-- ==
-- error: do not match

def pairs [a][b] (xs: [a]f32) (ys: [b]f32) = zip xs ys
