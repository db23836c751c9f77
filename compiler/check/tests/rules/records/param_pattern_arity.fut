-- ==
-- error: .

def f ((a, b): (i32, i32, i32)) = a
