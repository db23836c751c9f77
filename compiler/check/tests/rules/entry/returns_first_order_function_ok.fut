-- A function result whose parameters and result are first-order is fine.
-- ==
-- warning: ^$

entry adder (x: i32) : i32 -> i32 = \y -> x + y
