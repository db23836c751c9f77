-- ==
-- warning: ambiguous

def halve x = x / 2
