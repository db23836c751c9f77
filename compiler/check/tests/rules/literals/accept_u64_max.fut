-- ==
-- warning: ^$

entry main = 18446744073709551615 : u64
