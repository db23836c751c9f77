-- ==
-- error: Unknown.*NOPE

module M : NOPE = {}
