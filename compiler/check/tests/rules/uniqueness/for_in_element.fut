-- ==
-- error: not consumable

def f (xss: *[][]i32) =
  loop acc = 0 for xs in xss do
    let xs[0] = 1
    in acc + 1
