-- ==
-- error: must not be size-polymorphic

entry empty_rows : [0][]f32 = []
