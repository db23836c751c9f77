-- ==
-- error: "row".*not consumable

def f (xss: [][]i32) = map (\(row: []i32) -> row with [0] = 1) xss
