-- ==
-- error: Entry point functions may not be higher-order

entry scaler (x: f64) = {f = \(y: f64) -> y * x, v = x}
