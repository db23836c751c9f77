-- ==
-- error: Cannot create array|function

def fs = [\(x: i32) -> x, \x -> x + 1]
