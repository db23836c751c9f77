-- Only "==" on arrays is deprecated; "!=" draws no warning.
-- ==
-- warning: ^$

entry main (a: [][]f32) (b: [][]f32) = a != b
