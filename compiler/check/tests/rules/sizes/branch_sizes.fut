-- ==
-- error: do not match

def f (b: bool) (n: i64) : [n]i32 =
  if b then replicate n 0 else replicate (n + 1) 0
