-- ==
-- error: Parameter "a" refers to size "j" which will not be accessible to the caller

def keep (k: i64, j: i64) (a: [j]bool) = a
