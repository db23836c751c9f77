-- A type parameter does not support equality.
-- ==
-- error: equality

def same 't (a: t) (b: t) = a == b
