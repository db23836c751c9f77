-- ==
-- error: Entry point functions may not be polymorphic

entry nothing 'a (n: i64) : [0]a = []
