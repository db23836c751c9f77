-- ==
-- error: Type is ambiguous

def g q = q.len + 1i64
