-- A qualified type name is not a nice name at the entry boundary.
-- ==
-- warning: Entry point parameter.*will have an opaque type

module M : { type t val mk: i32 -> t val get: t -> i32 } = {
  type t = i32
  def mk (x: i32) = x
  def get (x: t) = x
}

entry f (x: M.t) = M.get x
