-- ==
-- error: Unmatched cases

def f (r: {x: bool, y: i32}) : i32 =
  match r
  case {x = true, y} -> y
