-- ==
-- error: .

type~ row = []i32
def f (x: [2]row) = x
