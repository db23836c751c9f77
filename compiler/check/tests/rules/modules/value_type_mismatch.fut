-- ==
-- error: Module type specifies.*val x.*but module provides

module M : { val x: i32 } = { def x = 1f32 }
