-- Imported by the other programs of this rule.
-- ==
-- accept

local def secret = 1i32
def public = 2i32
