-- ==
-- error: Cannot apply "twice"

def twice [n] (f: [n]i32 -> [n]i32) (xs: [n]i32) = f (f xs)

def main (xs: []i32) = twice (\ys -> ys ++ ys) xs
