-- ==
-- error: Refutable pattern not allowed here

def main = loop (1, y) = (1, 2) while y < 10 do (1, y + 1)
