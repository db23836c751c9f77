-- ==
-- error: Unmatched cases.*#b

type col = #r | #g | #b

def f (c: col) : i32 =
  match c
  case #r -> 0
  case #g -> 1
