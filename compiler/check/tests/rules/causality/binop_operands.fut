-- ==
-- error: Causality check

def f (xs: []i32) =
  let e = []
  in (map2 (+) e[0] (filter (> 0) xs)) ++ [1]
