-- ==
-- error: "g".*not consumable

def g = [1i32, 2]

def f (i: i64) = g with [i] = 0
