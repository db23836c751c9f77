-- ==
-- error: Causality check

def f (xs: []i32) =
  let (a, b) = ([], [filter (> 0) xs])
  in map2 (+) a[0] b[0]
