-- ==
-- error: Unknown.*z

module F (P: { val x: i32 }) = { def y = P.z }
