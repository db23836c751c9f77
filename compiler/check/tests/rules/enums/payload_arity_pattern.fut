-- ==
-- error: .

type opt = #some i32 | #none

def f (o: opt) : i32 =
  match o
  case #some -> 0
  case #none -> 1
