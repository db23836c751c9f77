-- ==
-- error: Unknown name "b"

def a (x: i32) : i32 = b x
def b (x: i32) : i32 = a x
