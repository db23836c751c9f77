-- ==
-- warning: Size expression with binding is replaced by unknown size

def main (n: i64) =
  let a = iota (let k = n in k + 1)
  in length a
