-- ==
-- error: do not match

def main = loop (xs: [3]i32) = [1, 2] for i < 2 do xs
