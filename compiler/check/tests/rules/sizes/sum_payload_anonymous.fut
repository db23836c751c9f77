-- A sum type hiding a size needs type~.
-- ==
-- error: Non-lifted type abbreviations may not use existential sizes

type t = #a ([]i32) | #b
