-- ==
-- warning: ^$

entry total = reduce (+) 0i32
