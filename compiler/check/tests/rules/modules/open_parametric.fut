-- ==
-- error: parametric

module F (P: {}) = { def x = 1i32 }
open F
