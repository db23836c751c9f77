-- ==
-- error: All function parameters must have non-anonymous sizes

module type S = { val total: []f32 -> f32 }
