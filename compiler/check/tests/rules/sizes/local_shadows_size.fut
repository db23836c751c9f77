-- After `let n = 5`, the name n in a type means the local n.
-- ==
-- error: do not match

def f [n] (xs: [n]i32) =
  let n = 5
  in (xs :> [n]i32) ++ (xs : [n]i32)
