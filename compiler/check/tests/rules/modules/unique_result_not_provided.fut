-- ==
-- error: Module type specifies.*but module provides

module M : { val f [n]: [n]i32 -> *[n]i32 } = { def f [n] (xs: [n]i32) : [n]i32 = xs }
