-- ==
-- warning: deprecated

def f (a: [][]f32) (b: [][]f32) = a != b
