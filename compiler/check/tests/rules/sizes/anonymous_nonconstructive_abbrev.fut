-- ==
-- error: anonymous size not used constructively

type^ pred = []f32 -> bool
