-- ==
-- warning: ^$

entry row_sums (xss: [][]f32) : []f32 = map f32.sum xss
