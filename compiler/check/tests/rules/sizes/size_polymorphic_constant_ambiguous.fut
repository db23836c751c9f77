-- A size-polymorphic constant used where nothing fixes the size.
-- ==
-- error: Ambiguous size

def iiota [n] : [n]i64 = iota n

def main = length iiota
