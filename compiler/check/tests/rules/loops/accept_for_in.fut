-- ==
-- warning: ^$

entry main (xs: []i32) = loop acc = 0 for x in xs do acc + x
