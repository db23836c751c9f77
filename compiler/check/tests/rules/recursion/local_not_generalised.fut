-- ==
-- error: i32.*bool|bool.*i32

def f = let id x = x in (id 1i32, id true)
