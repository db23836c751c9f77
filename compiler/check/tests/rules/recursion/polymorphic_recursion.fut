-- Recursion is monomorphic in types.
-- ==
-- error: a

def f 'a (x: a) (n: i32) : i32 =
  if n == 0 then 0 else f (x, x) (n - 1)
