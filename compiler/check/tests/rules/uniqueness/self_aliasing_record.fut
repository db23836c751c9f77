-- ==
-- error: Argument passed for consuming parameter is self-aliased

def g (p: *{l: []f32, r: []f32}) = p.l[0]

def f (n: i64) =
  let a = replicate n 0f32
  in g {l = a, r = a}
