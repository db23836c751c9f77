-- ==
-- error: .

type opt = #some i32 | #none

def x : opt = #some 1 2
