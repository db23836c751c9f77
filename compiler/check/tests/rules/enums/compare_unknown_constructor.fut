-- ==
-- error: #c

type t = #a | #b
def f (x: t) = x == #c
