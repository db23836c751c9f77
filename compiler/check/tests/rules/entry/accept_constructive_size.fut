-- ==
-- warning: ^$

entry dot [n] (a: [n]f32) (b: [n]f32) = f32.sum (map2 (*) a b)
