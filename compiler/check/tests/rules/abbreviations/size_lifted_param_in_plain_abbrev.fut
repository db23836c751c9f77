-- ==
-- error: Non-size-lifted type abbreviations may not contain size-lifted types

type box '~a = (a, i32)
