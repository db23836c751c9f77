-- ==
-- error: .

def f = (1i32, 2i32).a
