-- ==
-- error: Module defines.*but module type requires

module M : { type t 'a } = { type t = i32 }
