-- ==
-- error: Let-bound expression of higher-order type.*contains consumption

def upd (xs: *[]i32) (i: i64) = xs with [i] = 0

def main (xs: *[]i32) =
  let g = upd xs
  in g 0
