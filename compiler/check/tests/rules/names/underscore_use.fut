-- ==
-- error: underscore

def f (_y: i32) = _y + 1
