-- A recursive function passes its higher-order parameters unchanged.
-- ==
-- error: unchanged

def g (h: i32 -> i32) (n: i32) : i32 =
  if n == 0 then h 0 else g (\x -> h x + 1) (n - 1)
