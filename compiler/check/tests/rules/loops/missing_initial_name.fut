-- Without an initial value, the parameter names an existing variable.
-- ==
-- error: Unknown name "acc"

def f = loop acc for i < 3 do acc + 1
