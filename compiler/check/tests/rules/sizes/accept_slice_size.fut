-- A slice from 1 to the end has size n-1.
-- ==
-- warning: ^$

def f [n] (xs: [n]i32) : [n-1]i32 = xs[1:]
