-- ==
-- error: Module defines.*type t = f32.*but module type requires.*type t = i32

module M : { type t = i32 } = { type t = f32 }
