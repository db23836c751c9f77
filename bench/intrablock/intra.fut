-- Intra-block micro-benchmarks (issue 27, seed 002): an outer map over rows whose body is
-- a chain of inner SOACs. `fuse-intra` runs each as one kernel with a block per row
-- (FUTHARK_INTRA=0: the separate kernels); FUTHARK_INTRA_Q sets the elements per thread.
-- ==
-- entry: scan_map big_add
-- random input { [65536][256]i32 }
-- random input { [16384][1024]i32 }
-- random input { [4096][4096]i32 }

-- A scan of each row, then a map of the scanned row (two stages).
entry scan_map [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\row -> map (\x -> x * 2 + 1) (scan (+) 0 row)) xss

-- Digit-wise addition with carries resolved by a scan (big-number addition's shape): a map,
-- a scan of carry flags and a map that combines them.
entry big_add [n][m] (xss: [n][m]i32) : [n][m]i32 =
  map (\row ->
         let s = map (\x -> (x & 0xffff) + (x >> 16 & 0xffff)) row
         let c = scan (+) 0 (map (\x -> x >> 16) s)
         in map2 (\x k -> (x & 0xffff) + k) s c)
      xss
