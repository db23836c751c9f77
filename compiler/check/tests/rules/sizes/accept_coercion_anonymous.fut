-- An anonymous size in a coercion is an unknown size that the payload may take.
-- ==
-- warning: ^$

type pair 'a = #both a a | #neither

def nothing = #neither :> pair ([]f32)
