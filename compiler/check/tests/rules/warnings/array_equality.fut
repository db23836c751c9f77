-- ==
-- warning: Comparing arrays with "==" is deprecated

def f (a: []i32) (b: []i32) = a == b
