-- ==
-- error: scope-violation

def f (xs: []i32) =
  let g [m] (ys: [m]i32) = zip xs ys
  in g
