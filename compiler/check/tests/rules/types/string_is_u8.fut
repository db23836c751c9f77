-- ==
-- error: u8.*i32|i32.*u8

def s : []i32 = "abc"
