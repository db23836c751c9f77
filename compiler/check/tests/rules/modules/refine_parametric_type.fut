-- ==
-- error: Cannot refine

module type S = { type t 'a }
module type T = S with t = i32
