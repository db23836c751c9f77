-- ==
-- warning: ^$

def take_n (n: i64) (xs: [n]i32) = xs

entry main (n: i64) (xs: [n]i32) = take_n n xs
