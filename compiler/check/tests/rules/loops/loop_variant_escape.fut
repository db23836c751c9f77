-- ==
-- error: Loop-variant size

def grow [k] (a: [k]i32) (b: [k+1]i32) : [k+1]i32 = b

def f [n] (a: [n]i32) (b: []i32) =
  loop x = a for i < 1 do grow x b
