-- ==
-- error: lifted|function

def f '^a (x: a) = [x]
