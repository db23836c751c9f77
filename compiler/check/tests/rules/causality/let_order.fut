-- ==
-- error: Causality check

def f (xs: []f32) =
  let a = []
  let b = [filter (> 0) xs]
  in map2 (+) a[0] b[0]
