-- Everyday kernels, timed with the run-time checks inside kernels on and off (`--unsafe`):
-- see device-run.sh. `map_`, `reduce_` and `scan_` read their input at the point's own
-- index (no check survives); `gather` and `stencil` index computed positions (checked).

entry map_ (xs: []f32) = map (\x -> x * 2 + 1) xs

entry reduce_ (xs: []f32) = f32.sum xs

entry scan_ (xs: []f32) = scan (+) 0 xs

entry gather (xs: []f32) =
  let n = length xs
  in map (\i -> xs[(i * 7919) % n]) (iota n)

entry stencil (xs: []f32) =
  let n = length xs
  in map (\i -> xs[i] + xs[i64.min (i + 1) (n - 1)] + xs[i64.max (i - 1) 0]) (iota n)
