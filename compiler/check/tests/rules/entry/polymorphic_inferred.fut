-- Unannotated parameters are generalised, which makes the entry point polymorphic.
-- ==
-- error: Entry point functions may not be polymorphic

entry swap (a, b) = (b, a)
