-- ==
-- error: first-order

def f (n: i32) : i32 -> i32 =
  let g = f (n - 1)
  in \x -> g x
