-- ==
-- warning: Entry point return type.*will have an opaque type

entry pair (x: i32) = (x, {v = x})
