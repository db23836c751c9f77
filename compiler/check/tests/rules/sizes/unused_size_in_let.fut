-- ==
-- error: Size \[q\] unused in pattern

def main (y: i32) =
  let [q] (z: i32) = y
  in z
