entry main (xs: []i32) (i: i64) = map (\j -> xs[j + i]) (iota 10)
