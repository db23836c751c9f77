-- ==
-- error: .

def f (xs: []i32) = xs :> [2][2]i32
