-- ==
-- error: "xs".*not consumable|not consumable.*"xs"|Consuming.*"xs"

def f (xs: []i32) = loop ys = xs for i < 3 do ys with [i] = 0
