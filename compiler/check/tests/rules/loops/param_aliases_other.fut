-- ==
-- error: aliases other consumed loop parameter

def f (n: i64) =
  loop (a: *[]i32, b: *[]i32) = (replicate n 0, replicate n 0) for i < 3 do (b, b)
