-- Returning a function is allowed, but not one stored inside a tuple.
-- ==
-- error: Entry point functions may not be higher-order

entry adder (x: i32) : (i32 -> i32, i32) = (\y -> x + y, x)
