-- ==
-- error: "a".*consumed

def f (n: i64) =
  let a = replicate n 0i32
  let b = loop acc = a for i < n do acc with [i] = 1
  in a[0] + b[0]
