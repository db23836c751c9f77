-- ==
-- warning: ^$

type shape = #circle f32 | #rect f32 f32

entry area (c: bool) (r: f32) (w: f32) (h: f32) : f32 =
  let s : shape = if c then #circle r else #rect w h
  in match s
     case #circle x -> 3.14 * x * x
     case #rect a b -> a * b
