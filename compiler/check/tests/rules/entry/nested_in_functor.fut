-- ==
-- error: Entry points may not be declared inside modules

module mk (P: {val k: i32}) = {
  entry get (x: i32) = x + P.k
}
