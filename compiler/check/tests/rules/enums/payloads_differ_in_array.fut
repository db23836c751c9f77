-- ==
-- error: i32.*bool|bool.*i32

def c : [](#a i32 | #b) = [#a 1i32, #a true]
