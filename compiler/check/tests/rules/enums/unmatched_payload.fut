-- ==
-- error: Unmatched cases

type t = #leaf | #node bool

def f (v: t) : i32 =
  match v
  case #leaf -> 0
  case #node true -> 1
