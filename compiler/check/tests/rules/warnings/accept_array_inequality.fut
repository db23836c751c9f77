-- Only "==" on arrays is deprecated; "!=" draws no warning.
-- ==
-- accept

entry main (a: [][]f32) (b: [][]f32) = a != b
