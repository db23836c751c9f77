-- ==
-- error: Duplicate definition

module M = {
  def a = 1i32
  def a = 2i32
}
