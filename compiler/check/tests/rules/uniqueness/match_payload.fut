-- ==
-- error: not consumable

def f (o: (#some ([]i32) | #none)) : []i32 =
  match o
  case #some xs -> xs with [0] = 1
  case #none -> []
