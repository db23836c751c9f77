-- ==
-- warning: ^$

def x : i8 = -128
