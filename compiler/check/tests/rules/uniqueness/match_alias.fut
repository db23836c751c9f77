-- ==
-- error: "xs".*consumed

def f (xs: *[]i32) (b: bool) =
  let ys = match b
           case true -> xs
           case false -> xs
  let ys[0] = 1
  in xs[0]
