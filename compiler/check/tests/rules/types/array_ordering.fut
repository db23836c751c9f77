-- ==
-- error: .

def f (a: []i32) (b: []i32) = a < b
