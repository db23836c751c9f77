-- A * anywhere in a tuple parameter makes the whole parameter consuming.
-- ==
-- error: "ys".*not consumable|not consumable.*"ys"|Consuming.*"ys"

def f (p: ([]i32, *[]i32)) = p.1 with [0] = 1

def g (xs: *[]i32) (ys: []i32) = f (ys, xs)
