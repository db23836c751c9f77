-- Inside a parametric module, the parameter's abstract type is its own type.
-- ==
-- error: t

module F (P: { type t val z: t }) = { def w : i32 = P.z }
