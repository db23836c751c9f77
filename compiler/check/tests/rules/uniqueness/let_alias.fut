-- ==
-- error: "xs".*consumed

def f (xs: *[]i32) =
  let ys = xs
  let zs = ys with [0] = 1
  in xs[0] + zs[0]
