-- Issue 24's histogram benchmark: one entry per operator, each over `h` buckets with
-- `i32` indices (converted in the fused map, no index array materialised). Run by
-- bench/hist/run.py on the GPU machine.

entry add_f32 [n] (h: i64) (is: [n]i32) (xs: [n]f32) : []f32 =
  hist (+) 0 h (map i64.i32 is) xs

entry add_i32 [n] (h: i64) (is: [n]i32) (xs: [n]i32) : []i32 =
  hist (+) 0 h (map i64.i32 is) xs

entry max_i32 [n] (h: i64) (is: [n]i32) (xs: [n]i32) : []i32 =
  hist i32.max i32.lowest h (map i64.i32 is) xs

-- The largest value and, among equal ones, the smallest position.
def argmax_op (a: f32, ai: i32) (b: f32, bi: i32) : (f32, i32) =
  if a > b then (a, ai) else if b > a then (b, bi) else (a, i32.min ai bi)

entry argmax [n] (h: i64) (is: [n]i32) (xs: [n]f32) : ([]f32, []i32) =
  unzip (hist argmax_op (-f32.inf, i32.highest) h (map i64.i32 is)
              (zip xs (map i32.i64 (iota n))))
