-- ==
-- error: Module defines.*but module type requires

module M : { type t [n] } = { type t = i32 }
