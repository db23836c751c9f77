-- ==
-- error: Parameter "xs" refers to size "len" which will not be accessible to the caller

def first {len: i64, flag: bool} (xs: [len]i32) = xs
