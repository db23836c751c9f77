-- ==
-- error: functional|function type

def main (x: i32) =
  let g = loop f = (\(y: i32) -> y) for i < 3 do (\y -> f y + 1)
  in g x
