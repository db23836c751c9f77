-- An inferred type may not mention a size bound after the variable.
-- ==
-- error: scope-violation

def f xs =
  let n = 3i64
  let (ys: [n]i32) = xs
  in ys
