-- ==
-- error: (?i)duplicate.*#a

type t = #a | #a
