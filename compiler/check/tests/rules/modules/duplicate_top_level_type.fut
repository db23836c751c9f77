-- ==
-- error: Duplicate definition

type t = i32
type t = f32
