-- ==
-- error: Duplicate definition

module m = {}
def m = 1i32
