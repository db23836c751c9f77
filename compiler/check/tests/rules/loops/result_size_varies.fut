-- A parameter whose size changes gives the loop a new size, not the initial one.
-- ==
-- error: do not match

def f (n: i64) : [n]i32 =
  loop xs = replicate n 0 for i < 2 do xs ++ [1]
