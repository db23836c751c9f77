-- ==
-- error: "xs".*not consumable|not consumable.*"xs"|Consuming.*"xs"

def eat (a: *[]i32) = a[0]

def f (xs: []i32) = eat xs
