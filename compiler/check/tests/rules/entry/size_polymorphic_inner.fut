-- ==
-- error: must not be size-polymorphic

entry grid [m] (b: bool) : [2][m]bool = replicate 2 (replicate m b)
