-- ==
-- warning: ^$

entry main (n: i64) = map (\i -> replicate n i) (iota 3)
