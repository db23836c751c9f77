-- ==
-- error: Entry point functions may not be higher-order

entry twice (g: f32 -> f32) (x: f32) = g (g x)
