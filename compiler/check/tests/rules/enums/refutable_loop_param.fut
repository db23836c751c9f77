-- ==
-- error: Refutable pattern

def f (o: (#some i32 | #none)) =
  loop (#some x) = o for i < 2 do #some (x + 1)
