-- ==
-- warning: ^$

def f : (n: i64) -> [n]i32 = \n -> replicate n 0
