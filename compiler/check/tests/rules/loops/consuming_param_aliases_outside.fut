-- ==
-- error: Return value for consuming loop parameter "b" aliases "zs"

def f (n: i64) (zs: []i32) =
  loop (a: []i32, b: *[]i32) = (replicate n 0, replicate n 0) for i < 3 do (a, zs)
