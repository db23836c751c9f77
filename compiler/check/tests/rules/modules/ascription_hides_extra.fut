-- ==
-- error: Unknown.*b

module M : { val a: i32 } = { def a = 1i32 def b = 2i32 }

def c = M.b
