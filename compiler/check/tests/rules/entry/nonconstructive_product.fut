-- ==
-- error: Entry point size parameter \[k\] only used non-constructively

entry first_of_pairs [k] (a: [k*2]f32) = a[0]
