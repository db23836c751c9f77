-- ==
-- warning: ^$

entry main (xs: *[]i32) =
  let v = xs[0]
  let xs[1] = v
  in xs
