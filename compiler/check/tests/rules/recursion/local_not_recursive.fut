-- ==
-- error: Unknown name "g"

def f (n: i32) =
  let g (x: i32) : i32 = if x == 0 then 0 else g (x - 1)
  in g n
