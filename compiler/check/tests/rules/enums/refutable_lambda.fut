-- ==
-- error: Refutable pattern

def main = map (\(1, y) -> y) [(1, 2)]
