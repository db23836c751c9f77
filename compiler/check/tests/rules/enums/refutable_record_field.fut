-- ==
-- error: Refutable pattern

def f (r: {x: i32, y: i32}) =
  let {x = 1, y} = r
  in y
