-- ==
-- error: .

def main = loop acc = 0 for (a, b) in [1, 2, 3] do acc + a
