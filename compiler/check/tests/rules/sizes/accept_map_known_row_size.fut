-- ==
-- warning: ^$

entry main (xss: [][]i32) = map (\xs -> xs ++ xs) xss
