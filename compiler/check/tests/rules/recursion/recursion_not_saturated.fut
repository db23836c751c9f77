-- ==
-- error: saturated

def f (x: i32) (y: i32) : i32 =
  if x == 0 then y else let g = f (x - 1) in g y
