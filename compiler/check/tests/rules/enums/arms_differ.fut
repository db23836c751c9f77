-- ==
-- error: i32.*bool|bool.*i32

type col = #r | #g

def f (c: col) =
  match c
  case #r -> 1i32
  case #g -> true
