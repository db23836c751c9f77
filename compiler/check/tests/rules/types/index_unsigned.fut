-- A fixed index has a signed integer type.
-- ==
-- error: u32

def f (xs: []i32) = xs[1u32]
