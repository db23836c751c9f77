-- ==
-- error: out of bounds

def x : i64 = 9223372036854775808
