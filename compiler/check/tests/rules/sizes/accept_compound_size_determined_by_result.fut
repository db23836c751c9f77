-- The sizes of unflatten are determined by the annotated result (checked at run time).
-- ==
-- warning: ^$

entry main (xs: []i32) : [2][3]i32 = unflatten (filter (> 0) xs)
