-- An abstract type's size parameter used as an array size.
-- ==
-- warning: ^$

module M : { type t [n] val mk [n]: [n]i32 -> t [n] } = {
  type t [n] = [n]i32
  def mk [n] (xs: [n]i32) = xs
}
