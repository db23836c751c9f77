-- ==
-- error: Unmatched cases

def f (a: bool) (b: bool) : i32 =
  match (a, b)
  case (true, _) -> 0
  case (false, true) -> 1
