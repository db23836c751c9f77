-- ==
-- error: Non-lifted type abbreviations may not use existential sizes

type row = []i32
