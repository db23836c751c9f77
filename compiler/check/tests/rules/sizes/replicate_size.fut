-- ==
-- error: Sizes "n" and "m" do not match

def f (n: i64) (m: i64) : [n]i32 = replicate m 0
