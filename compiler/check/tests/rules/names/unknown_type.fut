-- ==
-- error: Unknown type

def f (x: nat) = x
