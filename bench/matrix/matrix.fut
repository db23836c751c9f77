-- Matrix benchmarks of issue 23: the textbook matrix product, matrix-vector product,
-- batched matrix product and all-pairs n-body accelerations, written as a Futhark
-- programmer would (no hand transposition, no tiling in the source).

-- Matrix product.
entry matmul [n][m][p] (a: [n][m]f32) (b: [m][p]f32) : [n][p]f32 =
  map (\r -> map (\c -> f32.sum (map2 (*) r c)) (transpose b)) a

-- Matrix-vector product.
entry matvec [n][m] (a: [n][m]f32) (x: [m]f32) : [n]f32 =
  map (\r -> f32.sum (map2 (*) r x)) a

-- A batch of matrix products.
entry batched [k][n][m][p] (a: [k][n][m]f32) (b: [k][m][p]f32) : [k][n][p]f32 =
  map2 (\x y -> map (\r -> map (\c -> f32.sum (map2 (*) r c)) (transpose y)) x) a b

-- All-pairs gravitational acceleration of each body (softened), as three arrays.
entry nbody [n] (xs: [n]f32) (ys: [n]f32) (zs: [n]f32) (ms: [n]f32)
    : ([n]f32, [n]f32, [n]f32) =
  let acc (xi: f32) (yi: f32) (zi: f32) =
    let f (xj: f32) (yj: f32) (zj: f32) (mj: f32) =
      let (dx, dy, dz) = (xj - xi, yj - yi, zj - zi)
      let r2 = dx * dx + dy * dy + dz * dz + 1e-3f32
      let inv = 1f32 / f32.sqrt r2
      let s = mj * inv * inv * inv
      in (dx * s, dy * s, dz * s)
    in reduce (\(a, b, c) (x, y, z) -> (a + x, b + y, c + z)) (0f32, 0f32, 0f32)
              (map4 f xs ys zs ms)
  in unzip3 (map3 acc xs ys zs)
