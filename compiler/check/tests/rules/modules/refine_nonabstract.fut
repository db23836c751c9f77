-- ==
-- error: Cannot refine|not an abstract type

module type S = { type t = i32 }
module type T = S with t = f32
