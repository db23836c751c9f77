-- ==
-- error: Size \[w\] unused in pattern

def width [w] (x: f32) = x + 1
