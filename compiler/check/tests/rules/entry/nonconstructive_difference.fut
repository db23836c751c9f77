-- ==
-- error: size parameter \[n\] only used non-constructively

entry peek [n] (a: [n-1]i64) : i64 = a[0]
