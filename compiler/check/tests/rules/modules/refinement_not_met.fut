-- ==
-- error: Module defines.*type t = i32.*but module type requires.*type t = f32

module type S = { type t val x: t }
module M = { type t = i32 def x = 1i32 }
module N : S with t = f32 = M
