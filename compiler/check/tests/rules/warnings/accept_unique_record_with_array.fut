-- ==
-- warning: ^$

def f (r: *([]i32, i32)) : *[]i32 = r.0 with [0] = r.1
