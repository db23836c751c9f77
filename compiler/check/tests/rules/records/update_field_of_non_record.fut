-- ==
-- error: record

def f (r: {a: i32}) = r with a.b = 1
