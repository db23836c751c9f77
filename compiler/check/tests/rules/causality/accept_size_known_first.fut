-- ==
-- warning: ^$

def f (xs: []i32) =
  let b = [filter (> 0) xs]
  let a = []
  in map2 (+) a[0] b[0]
