-- A size in a specification naming another specified value is compared as written.
-- ==
-- error: Module type specifies.*but module provides

module type S = { val n: i64 val xs: [n]i32 }
module M : S = { def n = 3i64 def xs = [1i32, 2] }
