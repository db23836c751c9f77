-- ==
-- error: Unknown name "t"

type t = i32

def x = t
