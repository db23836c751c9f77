-- ==
-- error: function

def f (b: bool) = if b then {g = \(x: i32) -> x} else {g = \(x: i32) -> x + 1}
