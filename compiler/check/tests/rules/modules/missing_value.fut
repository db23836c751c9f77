-- ==
-- error: Module does not define a value named "?x

module M : { val x: i32 } = { def y = 1i32 }
