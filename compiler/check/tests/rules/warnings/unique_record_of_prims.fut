-- ==
-- warning: Declaring.*as unique has no effect

def f (r: *{a: i32, b: f32}) = r.a
