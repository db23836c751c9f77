-- ==
-- warning: ^$

def f (xs: *[]i32) =
  let ys = copy xs
  let ys[0] = 1
  in (xs, ys)
