-- ==
-- error: .

type pair 'a = (a, a)

def f (x: pair i32 i32) = x
