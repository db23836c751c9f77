-- ==
-- error: also bound

type t = #pair i32 i32

def f (v: t) : i32 =
  match v
  case #pair x x -> x
