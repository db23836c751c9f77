-- Every application of a parametric module makes new abstract types.
-- ==
-- error: A\.t|B\.t

module F (P: {}) : { type t val v: t } = { type t = i32 def v = 0i32 }
module A = F {}
module B = F {}

def bad : A.t = B.v
