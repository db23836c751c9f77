-- A function merely named main is not checked for opaque types.
-- ==
-- warning: ^$

def main (c: #left | #right) : i32 =
  match c
  case #left -> 0
  case #right -> 1
