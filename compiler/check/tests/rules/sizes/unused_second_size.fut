-- ==
-- error: Size \[c\] unused in pattern

def rows [r][c] (xs: [r]f32) = length xs
