-- ==
-- error: Existential size would appear in function parameter of return type

def main = filter (> 0i32) >-> length
