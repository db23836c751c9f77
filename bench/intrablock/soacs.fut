-- Seed 002's SOAC micro-benchmarks (issue 27): an outer map whose body is one SOAC over the
-- row. Run with FUTHARK_INTRA=all so that each becomes an intra-block kernel (a block per
-- row), FUTHARK_INTRA_Q=q for seed 002's sequentialisation factor; FUTHARK_INTRA_KERNEL=0
-- (the default until checked) runs the ordinary segmented kernels instead. The same 2^25
-- elements (128 MiB of i32) each time, spread over rows of 256 to 4096.
-- ==
-- entry: row_map row_reduce row_scan row_centre
-- random input { [131072][256]i32 }
-- random input { [65536][512]i32 }
-- random input { [32768][1024]i32 }
-- random input { [16384][2048]i32 }
-- random input { [8192][4096]i32 }

entry row_map [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\row -> map (\x -> x + 2) row) xss

entry row_reduce [n][m] (xss: [n][m]i32) : [n]i32 =
  map (\row -> reduce (+) 0 row) xss

entry row_scan [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\row -> scan (+) 0 row) xss

-- A reduction whose result the next stage reads (a per-row scalar in shared memory).
entry row_centre [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\row -> let s = i32.sum row in map (\x -> x * i32.i64 m - s) row) xss

-- Scatter with random indices (the seed's 0.64x case): not an intra-block stage, so it
-- runs as the ordinary scatter kernel whatever FUTHARK_INTRA says.
-- ==
-- entry: row_scatter
-- random input { [65536][1024]i32 [65536][1024]i64 [65536][1024]i32 }
entry row_scatter [n][m] (dss: [n][m]i32) (iss: [n][m]i64) (vss: [n][m]i32) : [n][m]i32 =
  map3 (\ds is vs -> scatter (copy ds) (map (\i -> i % m) is) vs) dss iss vss
