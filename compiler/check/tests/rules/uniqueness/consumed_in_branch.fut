-- ==
-- error: "xs".*consumed

def f (b: bool) (xs: *[]i32) =
  let ys = if b then xs with [0] = 1 else copy xs
  in xs[0] + ys[0]
