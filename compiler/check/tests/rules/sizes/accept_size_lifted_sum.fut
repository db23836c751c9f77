-- ==
-- warning: ^$

type~ t = #a ([]i32) | #b

def count (x: t) : i64 =
  match x
  case #a xs -> length xs
  case #b -> 0
