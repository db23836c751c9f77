-- ==
-- error: Module does not define a type named "?t

module M : { type t } = { type u = i32 }
