-- ==
-- error: refers to size.*j.*not be accessible

def keep (k: i64, j: i64) (a: [j]bool) = a
