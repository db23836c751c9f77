-- An anonymous sum type crosses the entry boundary only as an opaque value.
-- ==
-- warning: Entry point parameter.*will have an opaque type

entry choose (c: #left | #right) : i32 =
  match c
  case #left -> 0
  case #right -> 1
