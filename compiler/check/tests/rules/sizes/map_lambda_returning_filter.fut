-- ==
-- error: Cannot apply "map"

def f (xs: []i32) =
  let g = \(x: i32) -> filter (> x) xs
  in map g [1, 2]
