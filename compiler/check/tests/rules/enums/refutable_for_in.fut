-- ==
-- error: Refutable pattern

def main = loop acc = 0 for (0, y) in [(0, 1)] do acc + y
