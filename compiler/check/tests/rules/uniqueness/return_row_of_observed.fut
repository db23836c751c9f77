-- ==
-- error: aliased to "xss"

def f (xss: [][]i32) : *[]i32 = xss[0]
