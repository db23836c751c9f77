-- Segmented scans of every shape the CUDA backend picks a different entry for: segments of
-- at most 16 (one thread each), up to 256 (one warp each) and longer (look-back tiles),
-- with a non-commutative operator (composition of affine maps over wrapping i32) and
-- a tuple accumulator. The device call compares the CUDA output with the interpreter's.

def compose (a1: i32, b1: i32) (a2: i32, b2: i32) : (i32, i32) = (a1 * a2, b1 * a2 + b2)

entry affine (n: i64) (m: i64) : [n][m](i32, i32) =
  map (\i -> scan compose (1, 0)
                  (map (\j -> (i32.i64 ((i * 7 + j * 3) % 5) + 1, i32.i64 ((i + j * 11) % 13) - 6))
                       (iota m)))
      (iota n)

entry sums (n: i64) (m: i64) : [n][m]f32 =
  map (\i -> scan (+) 0f32 (map (\j -> f32.i64 ((i * 31 + j) % 17) * 0.25f32) (iota m))) (iota n)
