-- ==
-- error: incompatible regarding consuming their arguments

def on 'a (f: a -> a) (x: a) = f x

def bump (xs: *[]i32) = xs with [0] = 1

def main (xs: *[]i32) = on bump xs
