-- ==
-- warning: ^$

module A = { def x = 1i32 }
module B = { open A }

entry main = B.x
