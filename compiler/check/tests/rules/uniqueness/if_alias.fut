-- ==
-- error: "ys".*consumed

def f (b: bool) (xs: *[]i32) (ys: *[]i32) =
  let zs = if b then xs else ys
  let zs[0] = 1
  in ys[0]
