-- ==
-- warning: ^$

module M : { val f [n]: *[n]i32 -> i32 } = { def f [n] (xs: [n]i32) = xs[0] }
