-- ==
-- error: "xs".*not consumable

def f (xs: []i32) = xs with [0] = 1
