-- ==
-- error: do not match

def pair [n] (xs: [n]i32) (ys: [n]i32) = zip xs ys

def main = pair [1, 2] [1, 2, 3]
