-- ==
-- error: Cannot match parametric module with non-parametric module type

module type S = { val x: i32 }
module F (P: {}) = { def x = 1i32 }
module M : S = F
