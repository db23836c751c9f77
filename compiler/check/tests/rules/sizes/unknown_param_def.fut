-- ==
-- error: Unknown size.*in parameter

def pick (b: bool) =
  let k = if b then 3 else 4
  in \(ys: [k]i32) -> ys[0]
