-- ==
-- error: "xs".*consumed

def same (a: []i32) = a

def f (xs: *[]i32) =
  let ys = same xs
  let ys[0] = 1
  in xs[0]
