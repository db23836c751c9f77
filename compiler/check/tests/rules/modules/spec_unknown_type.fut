-- ==
-- error: Unknown type

module type S = { val x: u }
