-- ==
-- error: M\.t

module M : { type t val mk: i32 -> t } = {
  type t = i32
  def mk (x: i32) = x
}

def main = M.mk 1 + 1i32
