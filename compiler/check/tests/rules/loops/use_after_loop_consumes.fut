-- ==
-- error: "xs".*consumed

def f (xs: *[]i32) =
  let ys = loop acc = xs for i < 2 do acc with [i] = 1
  in (ys, xs[0])
