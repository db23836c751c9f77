-- ==
-- error: function|lifted

def f = replicate 3 (\(x: i32) -> x)
