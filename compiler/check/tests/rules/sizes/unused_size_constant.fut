-- A size parameter of a constant must be a size of its type.
-- ==
-- error: Size \[n\] unused

def count [n] : i64 = 7
