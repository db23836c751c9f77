-- ==
-- warning: Entry point return type.*will have an opaque type

entry classify (x: i32) : (#neg | #nonneg) =
  if x < 0 then #neg else #nonneg
