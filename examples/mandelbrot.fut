-- | Escape-time Mandelbrot set: for every pixel of a `width` × `height` grid over the
-- rectangle [xmin, xmax] × [ymin, ymax], the number of iterations (up to `depth`) before
-- the orbit of z ↦ z² + c leaves the circle of radius 2.
-- ==
-- input { 8i64 6i64 30i32 -2.0f32 -1.0f32 1.0f32 1.0f32 }
-- auto output

def divergence (depth: i32) (cr: f32) (ci: f32) : i32 =
  let (_, _, i) =
    loop (zr, zi, i) = (0f32, 0f32, 0i32)
    while i < depth && zr * zr + zi * zi < 4f32 do
      (zr * zr - zi * zi + cr, 2f32 * zr * zi + ci, i + 1)
  in i

entry main (width: i64) (height: i64) (depth: i32)
           (xmin: f32) (ymin: f32) (xmax: f32) (ymax: f32) : [height][width]i32 =
  let dx = (xmax - xmin) / f32.i64 width
  let dy = (ymax - ymin) / f32.i64 height
  in tabulate_2d height width (\y x ->
       divergence depth (xmin + dx * f32.i64 x) (ymin + dy * f32.i64 y))
