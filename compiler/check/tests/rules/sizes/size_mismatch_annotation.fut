-- ==
-- error: Sizes "n" and "m" do not match

def f [n][m] (a: [n]i32) (b: [m]i32) : [n]i32 = b
