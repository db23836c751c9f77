-- ==
-- error: Module type specifies.*but module provides

module M : { type t = i32 val x: t } = { type t = i32 def x = 1f32 }
