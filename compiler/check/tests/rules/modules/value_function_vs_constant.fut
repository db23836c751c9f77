-- ==
-- error: Module type specifies.*but module provides

module M : { val f: i32 -> i32 } = { def f = 1i32 }
