-- ==
-- error: lifted|function

def id 'a (x: a) = x

def main = id (\(x: i32) -> x)
