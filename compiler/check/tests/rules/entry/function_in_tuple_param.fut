-- ==
-- error: Entry point functions may not be higher-order

entry pick (p: (i32, bool -> i32)) = p.1 true + p.0
