-- A definition may be more general than its specification.
-- ==
-- warning: ^$

module M : { val id: i32 -> i32 } = { def id 'a (x: a) = x }

entry main (x: i32) = M.id x
