-- A loop whose parameter is not consumed returns something aliasing its initial value.
-- ==
-- error: "xs".*consumed

def f (xs: *[]i32) =
  let ys = loop acc = xs for i < 2 do acc
  let ys[0] = 1
  in xs[0]
