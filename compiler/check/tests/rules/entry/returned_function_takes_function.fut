-- ==
-- error: Entry point functions may not be higher-order

entry apply_to (x: i32) : (i32 -> i32) -> i32 = \g -> g x
