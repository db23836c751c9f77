-- ==
-- error: Unknown type

module type S = { val x: t type t }
