-- ==
-- error: Module does not define a module named "?N

module M : { module N: { val k: i32 } } = { def k = 1i32 }
