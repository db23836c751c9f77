-- ==
-- error: "xs".*consumed

def f (xs: *[]i32) =
  let {p, q} = {p = xs, q = 1i32}
  let p[0] = q
  in xs[0]
