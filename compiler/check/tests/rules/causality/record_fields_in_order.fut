-- A record's fields are evaluated as written: the first field cannot use a size that the
-- second computes.
-- ==
-- error: Causality check

def f (xs: []i32) =
  let r = {e = [], g = [filter (> 0) xs]}
  in map2 (+) r.e[0] r.g[0]
