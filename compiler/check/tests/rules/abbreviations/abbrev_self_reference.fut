-- A type abbreviation cannot refer to itself.
-- ==
-- error: Unknown type

type t = (i32, t)
