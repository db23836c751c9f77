-- ==
-- warning: intrinsic

def f (x: f32) = intrinsics.sqrt32 x
