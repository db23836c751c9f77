-- ==
-- error: Unmatched cases

def f (b: bool) = match b case true -> 1i32
