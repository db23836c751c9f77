-- ==
-- error: do not match

def f (xs: [3]i32) =
  let (ys: [4]i32) = xs
  in ys
