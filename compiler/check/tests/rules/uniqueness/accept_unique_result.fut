-- A unique result aliases nothing, so consuming it leaves the argument alone.
-- ==
-- warning: ^$

def fresh (a: []i32) : *[]i32 = copy a

def f (xs: []i32) =
  let ys = fresh xs
  let ys[0] = 1
  in (ys, xs[0])
