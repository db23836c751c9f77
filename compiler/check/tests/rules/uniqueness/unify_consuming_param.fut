-- ==
-- error: incompatible regarding consuming their arguments

def eat (a: *[3]i64) : i64 = 1

def view : [3]i64 -> i64 = eat
