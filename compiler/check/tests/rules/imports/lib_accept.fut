-- Imported by the other programs of this rule.
-- ==
-- warning: ^$

local def secret = 1i32
def public = 2i32
