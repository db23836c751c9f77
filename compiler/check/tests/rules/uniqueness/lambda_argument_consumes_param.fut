-- A lambda given where an observing function is expected may not consume its parameter.
-- ==
-- error: "ys".*not consumable

def app (f: []i32 -> i32) (xs: []i32) = f xs

def main (xs: *[]i32) = app (\ys -> let ys[0] = 1 in ys[0]) xs
