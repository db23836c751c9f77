-- ==
-- error: Module type specifies.*but module provides

module M : { val id 'a: a -> a } = { def id (x: i32) = x }
