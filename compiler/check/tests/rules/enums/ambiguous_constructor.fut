-- ==
-- error: Type is ambiguous

def f (x: bool) = #on x
