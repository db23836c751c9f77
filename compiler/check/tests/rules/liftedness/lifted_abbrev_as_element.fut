-- ==
-- error: lifted|function

type^ fn = i32 -> i32

def f (xs: []fn) = 0i32
