-- ==
-- error: Unmatched cases

def f (x: u8) : bool =
  match x
  case 0 -> true
  case 1 -> false
