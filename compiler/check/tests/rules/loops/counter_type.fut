-- The counter takes the bound's type.
-- ==
-- error: i64.*i32|i32.*i64

def main = loop acc = 0i64 for i < 10i32 do acc + i
