-- ==
-- warning: Inclusion shadows type

module type A = { type t }
module type B = { type t include A }
