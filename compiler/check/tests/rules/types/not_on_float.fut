-- ==
-- error: f64

def f (x: f64) = !x
