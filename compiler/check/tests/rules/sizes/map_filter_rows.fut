-- Each row filtered gets its own size: an array of them would be irregular.
-- ==
-- error: Cannot apply "map"

def f (xss: [][]i32) = map (filter (> 0)) xss
