-- ==
-- error: Entry point functions may not be polymorphic

entry konst '^a (x: a) = 0i32
