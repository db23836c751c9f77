-- ==
-- error: Ambiguous size

def main = length (replicate 0 (??? : []i32))
