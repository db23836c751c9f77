-- ==
-- error: "xs".*consumed

def f (xs: *[]i32) =
  let r = {a = xs, b = 0i32}
  let ys = r.a
  let ys[0] = 1
  in xs[0]
