-- ==
-- error: Module does not define a value named "?x

module type A = { val x: i32 }
module type B = { include A val y: i32 }
module M : B = { def y = 1i32 }
