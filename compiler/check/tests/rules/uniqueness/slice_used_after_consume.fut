-- ==
-- error: consumed

def f (xs: *[]i32) =
  let ys = xs[0:2]
  let xs[0] = 1
  in ys
