-- ==
-- error: b

def f (r: {a: i32}) = r with b = 1
