-- ==
-- error: The 'intrinsics' module may not be used in module expressions

open intrinsics
