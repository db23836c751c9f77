-- A size parameter seen only inside a function type cannot be read from a value.
-- ==
-- error: Ambiguous size

def probe [k] (h: [k]f32 -> f32) : i64 = k

def main = probe (\a -> a[0])
