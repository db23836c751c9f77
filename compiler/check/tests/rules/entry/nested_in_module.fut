-- ==
-- error: Entry points may not be declared inside modules

module m = {
  entry inc (x: i32) = x + 1
}
