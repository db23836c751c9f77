-- ==
-- warning: ^$

entry main = -32768 : i16
