-- ==
-- error: bool.*i32|i32.*bool

type opt = #some i32 | #none

def x : opt = #some true
