-- ==
-- warning: ^$

module F (P: { val k: i32 }) = { def add (x: i32) = x + P.k }
module G = F { def k = 2i32 }

entry main (x: i32) = G.add x
