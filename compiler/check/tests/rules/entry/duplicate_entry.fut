-- ==
-- error: Duplicate definition

entry main (x: i32) = x
entry main (x: f32) = x
