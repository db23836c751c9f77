-- ==
-- error: Anonymous dimensions are not allowed here

module type T = { type t } with t = []i32
