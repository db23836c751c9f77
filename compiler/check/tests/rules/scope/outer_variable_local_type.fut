-- ==
-- error: scope-violation

def f y =
  let h 'c (z: c) = if true then z else y
  in h
