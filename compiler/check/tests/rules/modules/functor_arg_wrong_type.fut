-- ==
-- error: Module type specifies.*but module provides

module F (P: { val k: i32 }) = { def z = P.k }
module G = F { def k = true }
