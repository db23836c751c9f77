-- ==
-- error: lifted|function

def g '~a (x: a) = x

def main = g (\(x: i32) -> x)
