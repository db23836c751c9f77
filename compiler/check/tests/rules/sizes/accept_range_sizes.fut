-- ==
-- warning: ^$

def up (n: i64) : [n]i64 = 0..<n

def between (a: i64) (b: i64) : [b-a]i64 = a..<b

entry main (n: i64) = (up n, between 2 n)
