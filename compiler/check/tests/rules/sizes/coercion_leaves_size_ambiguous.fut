-- A coercion does not say what the size of an unused constructor's payload is.
-- ==
-- error: Ambiguous size.*size coercion

type pair 'a = #both a a | #neither

def nothing : pair ([3]f32) = #neither :> pair ([3]f32)
