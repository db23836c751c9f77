-- ==
-- error: "xs".*consumed

def f (xs: *[]i32) =
  let ys = xs[1:]
  let ys[0] = 1
  in xs
