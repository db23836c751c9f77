-- ==
-- error: Entry point functions must not be size-polymorphic in their return type

entry fill [k] (x: u8) : [k]u8 = replicate k x
