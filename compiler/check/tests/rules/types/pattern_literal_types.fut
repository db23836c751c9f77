-- ==
-- error: bool.*i32|i32.*bool

type t = #a i32

def f (x: t) : i32 =
  match x
  case #a 1 -> 0
  case #a true -> 1
