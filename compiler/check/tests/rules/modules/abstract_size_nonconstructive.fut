-- An abstract type's size parameter must be an array size in the definition.
-- ==
-- error: cannot be made abstract because size parameter.*n.*is not used as an array size

module M : { type t [n] } = { type t [n] = [n+1]f32 }
