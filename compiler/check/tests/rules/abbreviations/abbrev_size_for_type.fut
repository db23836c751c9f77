-- ==
-- error: .

type box 'a = [1]a

def f (x: box [2]) = x
