-- A sum type reached through a type name is fine: no warning.
-- ==
-- warning: ^$

type dir = #up | #down

entry flip (d: dir) : dir =
  match d
  case #up -> #down
  case #down -> #up
