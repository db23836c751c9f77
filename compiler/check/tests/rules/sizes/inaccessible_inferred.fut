-- The size is forced by inference rather than written.
-- ==
-- error: refers to size "k" which will not be accessible to the caller

def f (k: i64, j: i64) (a: []bool) = zip a (iota k)
