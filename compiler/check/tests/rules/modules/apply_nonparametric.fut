-- ==
-- error: Cannot apply non-parametric module

module A = { def x = 1i32 }
module B = A {}
