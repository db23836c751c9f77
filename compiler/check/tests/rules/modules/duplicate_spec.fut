-- ==
-- error: Duplicate definition

module type S = { val x: i32 val x: f32 }
