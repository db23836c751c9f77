-- ==
-- error: Non-lifted type abbreviations may not contain functions

type box '^a = (a, i32)
