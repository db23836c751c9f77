-- ==
-- error: alias

def f (xs: *[][]i32) =
  let xs[0] = xs[1]
  in xs
