-- ==
-- error: .

def f = let (a, b) = (1i32, 2i32, 3i32) in a + b
