-- ==
-- warning: Entry point return type.*will have an opaque type

entry split (xs: []i32) = {evens = xs, odds = xs}
