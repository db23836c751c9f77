-- ==
-- error: (?i)duplicate

def f (r: {a: i32, a: f32}) = r
