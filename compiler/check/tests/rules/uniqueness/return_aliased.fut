-- ==
-- error: aliased to "a"

def pick (a: []f32) (b: *[]f32) : *[]f32 = a
