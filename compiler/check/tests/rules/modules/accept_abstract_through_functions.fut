-- ==
-- warning: ^$

module M : { type t val mk: i32 -> t val get: t -> i32 } = {
  type t = i32
  def mk (x: i32) = x
  def get (x: t) = x
}

entry main (x: i32) = M.get (M.mk x)
