-- ==
-- warning: ^$

def inc [n] (xs: [n]f32) : [n]f32 = map (+ 1) xs

entry main (xs: []f32) = inc xs
