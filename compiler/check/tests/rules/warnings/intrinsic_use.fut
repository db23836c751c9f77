-- ==
-- warning: Using intrinsic functions directly

def f (x: f32) = intrinsics.sqrt32 x
