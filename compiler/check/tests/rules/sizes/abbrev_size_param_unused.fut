-- ==
-- error: Size parameter "\[n\]" unused

type vec [n] = []f32
