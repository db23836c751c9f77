-- A tuple pattern is one parameter of tuple type.
-- ==
-- warning: Entry point parameter.*will have an opaque type

entry add (a: i32, b: i32) = a + b
