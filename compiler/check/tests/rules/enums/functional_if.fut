-- ==
-- error: function

def f (b: bool) = if b then (\(x: i32) -> x) else (\x -> x + 1)
