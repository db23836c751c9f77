-- ==
-- warning: Entry point parameter.*will have an opaque type

entry norm (v: {x: f32, y: f32}) = v.x * v.x + v.y * v.y
