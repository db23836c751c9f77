-- ==
-- warning: ^$

entry main (y: f32) = let x : f32 = 1 in x + y
