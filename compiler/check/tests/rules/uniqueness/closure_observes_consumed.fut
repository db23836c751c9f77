-- ==
-- error: consumed

def f (xs: *[]i32) =
  let g = \(i: i64) -> xs[i]
  let xs[0] = 1
  in g 0
