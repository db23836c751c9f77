-- A non-unique result may alias every argument given to an observing parameter.
-- ==
-- error: "zs".*consumed

def fst (p: ([]i32, []i32)) = p.0

def f (xs: *[]i32) (zs: *[]i32) =
  let ys = fst (xs, zs)
  let ys[0] = 1
  in zs[0]
