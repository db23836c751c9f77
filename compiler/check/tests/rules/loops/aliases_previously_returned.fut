-- ==
-- error: aliases previously returned value

def f (n: i64) =
  loop (row: []f32, m: *[][]f32) = (replicate n 0, replicate n (replicate n 0))
  for i < 2 do
    let m[0] = copy row
    in (m[1], m)
