-- ==
-- error: (?i)duplicate|previously defined

def r = {a = 1i32, a = 2i32}
