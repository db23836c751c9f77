-- ==
-- warning: ^$

def f (n: i32) : i32 = if n <= 0 then 0 else n + f (n - 1)

entry main (n: i32) = f n
