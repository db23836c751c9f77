-- ==
-- error: Non-lifted type abbreviations may not contain functions

type fn = i32 -> i32
