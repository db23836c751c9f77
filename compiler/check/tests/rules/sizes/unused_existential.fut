-- ==
-- error: Existential size "n" not used as array size

def f (x: i32) : ?[n].i32 = x
