-- ==
-- error: Unknown type

type pair 'a = (a, b)
