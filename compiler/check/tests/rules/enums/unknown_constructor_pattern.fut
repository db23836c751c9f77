-- ==
-- error: #c

type t = #a | #b

def f (x: t) : i32 =
  match x
  case #a -> 0
  case #c -> 1
