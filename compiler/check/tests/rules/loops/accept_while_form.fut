-- ==
-- warning: ^$

def f (n: i32) = loop (i, acc) = (0, 1i64) while i < n do (i + 1, acc * 2)
