-- ==
-- error: i32.*i64|i64.*i32

def r = 1i32..<10i64
