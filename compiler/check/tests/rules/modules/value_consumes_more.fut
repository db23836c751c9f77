-- A definition that consumes its argument cannot stand for a spec that does not.
-- ==
-- error: Module type specifies.*but module provides

module M : { val set [n]: [n]i32 -> [n]i32 } = {
  def set [n] (xs: *[n]i32) : *[n]i32 = xs with [0] = 1
}
