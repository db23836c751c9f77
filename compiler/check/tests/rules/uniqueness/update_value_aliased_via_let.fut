-- ==
-- error: alias

def f (xs: *[][]i32) =
  let row = xs[0]
  let xs[1] = row
  in xs
