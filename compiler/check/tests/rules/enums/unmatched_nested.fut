-- ==
-- error: Unmatched cases

type col = #r | #g

def f (p: (col, bool)) : i32 =
  match p
  case (#r, true) -> 0
  case (_, false) -> 1
