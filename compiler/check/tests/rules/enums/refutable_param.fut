-- ==
-- error: Refutable pattern

def f (#some x: (#some i32 | #none)) = x
