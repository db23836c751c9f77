-- ==
-- error: Type is ambiguous

def get = (.a)
