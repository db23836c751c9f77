-- ==
-- error: refers to size.*len.*not be accessible

def first {len: i64, flag: bool} (xs: [len]i32) = xs
