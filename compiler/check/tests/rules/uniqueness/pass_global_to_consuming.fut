-- ==
-- error: "g".*not consumable|not consumable.*"g"|Consuming.*"g"

def eat (a: *[]i32) = a[0]

def g = [1i32, 2, 3]

def f = eat g
