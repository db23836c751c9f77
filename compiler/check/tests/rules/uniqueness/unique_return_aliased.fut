-- ==
-- error: aliased to some other component

def two (a: *[]u8) : {x: *[]u8, y: *[]u8} = {x = a, y = a}
