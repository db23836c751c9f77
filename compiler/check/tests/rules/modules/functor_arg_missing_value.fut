-- ==
-- error: Module does not define a value named "?k

module F (P: { val k: i32 }) = { def z = P.k }
module G = F { def j = 1i32 }
