-- ==
-- error: function

def f (b: bool) =
  match b
  case true -> (\(x: i32) -> x)
  case false -> (\x -> x + 1)
