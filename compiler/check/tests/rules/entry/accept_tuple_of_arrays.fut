-- A tuple result of arrays of primitives is not opaque.
-- ==
-- warning: ^$

entry both (xs: []i32) = (xs, map (* 2) xs)
