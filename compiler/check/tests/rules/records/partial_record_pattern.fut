-- A record pattern names every field.
-- ==
-- error: .

def f (r: {a: i32, b: i32}) = let {a} = r in a
