-- ==
-- error: previously defined

def g 'a 'a (x: a) = x
