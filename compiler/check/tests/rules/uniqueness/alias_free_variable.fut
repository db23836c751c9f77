-- ==
-- error: aliases the free variable "tbl"

def tbl = [1f32, 2]

def get (i: i64) = if i > 0 then tbl else tbl
