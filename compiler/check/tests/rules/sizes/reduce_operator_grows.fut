-- A reduction operator must keep the size of its operands.
-- ==
-- error: do not match

def f (xss: [][]i32) = reduce (\a b -> a ++ b) [] xss
