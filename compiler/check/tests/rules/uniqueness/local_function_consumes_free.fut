-- ==
-- error: consum

def f (xs: *[]i32) =
  let g (i: i64) = xs with [i] = 0
  in g 0
