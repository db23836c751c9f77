-- ==
-- warning: ^$

def f (n: i64) =
  loop acc = replicate n 0i32 for i < n do acc with [i] = i32.i64 i
