-- The result of reduce aliases its neutral element and array.
-- ==
-- error: "xss".*consumed

def f (xss: *[][]i32) =
  let r = reduce (\a b -> if a[0] > b[0] then a else b) xss[0] xss
  let r[0] = 1
  in xss
