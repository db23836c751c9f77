-- ==
-- error: "xs".*consumed

def f (xs: *[]i32) =
  let (a, b) = (xs, 0)
  let a[0] = b
  in xs
