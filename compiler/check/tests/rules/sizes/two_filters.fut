-- Each call of a function with an existential result makes a distinct size.
-- ==
-- error: do not match

def f (xs: []i32) = map2 (+) (filter (> 0) xs) (filter (< 0) xs)
