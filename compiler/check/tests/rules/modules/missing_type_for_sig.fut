-- ==
-- error: Module does not define a type named "?t

module type S = { type t }
module M : S = { def x = 1i32 }
