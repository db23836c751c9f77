-- ==
-- error: Loop body does not have expected type

def main (n: i64) = loop (xs: [n]i32) = replicate n 0 for i < 3 do xs ++ xs
