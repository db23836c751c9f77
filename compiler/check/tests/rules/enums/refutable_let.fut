-- ==
-- error: Refutable pattern

def f (o: (#some i32 | #none)) =
  let #some x = o
  in x
