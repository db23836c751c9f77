-- ==
-- error: M\.t

module M = { type t = i32 def v : t = 1 } : { type t val v: t }

def z : i32 = M.v
