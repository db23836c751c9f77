-- ==
-- error: .

def f (p: (i32, i32)) = p.2
