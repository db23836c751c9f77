-- Operations over a resident array, for the multi-GPU benchmark: the array is made on the
-- GPUs once per call (left partitioned by rows when its map is split), then reduced or
-- mapped `reps` times. The time of one operation is (T(reps) - T(0)) / reps.
-- ==
-- entry: reduce_resident
-- input { 1000i64 3 } output { 1501500f32 }

def make (n: i64) : [n]f32 = map (\i -> f32.i64 (i % 1000)) (iota n)

entry reduce_resident (n: i64) (reps: i32) : f32 =
  let xs = make n
  in loop acc = 0f32 for r < reps do acc + f32.sum (map (+ f32.i32 r) xs)

-- ==
-- entry: map_resident
-- input { 1000i64 3 } output { 64187.5f32 }
entry map_resident (n: i64) (reps: i32) : f32 =
  let ys = loop ys = make n for _r < reps do map (\y -> y * 0.5 + 1) ys
  in f32.sum ys
