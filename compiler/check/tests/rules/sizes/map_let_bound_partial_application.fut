-- ==
-- error: Cannot apply "map"

def f (xss: [][]i32) =
  let g = filter (> 0)
  in map g xss
