-- ==
-- error: scope-violation

def f x =
  let h 'q (z: q) = (z, x) : (q, q)
  in h
