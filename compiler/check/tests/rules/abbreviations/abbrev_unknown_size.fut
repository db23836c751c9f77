-- ==
-- error: Unknown name "n"

type vec = [n]i32
