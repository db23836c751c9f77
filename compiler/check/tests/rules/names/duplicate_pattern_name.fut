-- ==
-- error: also bound

def f = let (a, a) = (1i32, 2i32) in a
