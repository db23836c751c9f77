-- A loop body may not consume a variable bound outside it.
-- ==
-- error: "xs"

def f (xs: *[]i32) (n: i64) =
  loop acc = 0 for i < n do
    let xs[i] = 0
    in acc + 1
