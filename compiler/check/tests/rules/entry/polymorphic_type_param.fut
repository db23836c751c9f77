-- An entry point may not take type parameters.
-- ==
-- error: Entry point functions may not be polymorphic

entry ident 't (x: t) : t = x
