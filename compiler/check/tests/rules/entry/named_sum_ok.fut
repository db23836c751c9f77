-- A sum type reached through a type name is fine: no warning.
-- ==
-- accept

type dir = #up | #down

entry flip (d: dir) : dir =
  match d
  case #up -> #down
  case #down -> #up
