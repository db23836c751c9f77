-- ==
-- error: function|lifted

def f = map (\(x: i32) (y: i32) -> x + y) [1, 2]
