-- ==
-- warning: ^$

entry main (x: u8) =
  match x
  case 0 -> true
  case _ -> false
