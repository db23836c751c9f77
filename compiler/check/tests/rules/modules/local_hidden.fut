-- ==
-- error: Unknown.*hidden

module M = {
  local def hidden = 1i32
  def shown = hidden
}

def x = M.hidden
