-- ==
-- error: parametric module

module F (P: { val n: i64 }) = { def m = P.n }

def z = F.m
