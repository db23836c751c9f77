-- ==
-- error: "xs".*consumed

def f (xs: *[]i32) =
  let a = xs with [0] = 1
  let b = xs with [1] = 2
  in (a, b)
