-- | Small combinators for working with functions: piping, composition,
-- argument plumbing and repeated application.

-- | Pipe a value into a function: `x |> f` is `f x`. It is the loosest
-- binary operator and associates to the left, so
-- `xs |> map f |> reduce (+) 0` reads as a pipeline from left to right.
def (|>) '^a '^b (x: a) (f: a -> b) : b =
  f x

-- | Apply a function to a value: `f <| x` is `f x`. It binds just
-- tighter than `|>` and associates to the right, so `f <| g <| x` is
-- `f (g x)`.
def (<|) '^a '^b (f: a -> b) (x: a) : b =
  f x

-- | Compose from left to right: `(f >-> g) x` is `g (f x)`. Functions
-- whose result has a size known only at run time cannot be composed
-- this way; use `|>` for those.
def (>->) '^a '^b '^c (f: a -> b) (g: b -> c) (x: a) : c =
  g (f x)

-- | Compose in mathematical order: `(g <-< f) x` is `g (f x)`. The same
-- restriction on run-time sizes as for `>->` applies.
def (<-<) '^a '^b '^c (g: b -> c) (f: a -> b) (x: a) : c =
  g (f x)

-- | Swap the two arguments of a function: `flip f b a` is `f a b`.
def flip '^a '^b '^c (f: a -> b -> c) (b: b) (a: a) : c =
  f a b

-- | Turn a function on pairs into a function of two arguments:
-- `curry f a b` is `f (a, b)`.
def curry '^a '^b '^c (f: (a, b) -> c) (a: a) (b: b) : c =
  f (a, b)

-- | Turn a function of two arguments into a function on pairs:
-- `uncurry f (a, b)` is `f a b`.
def uncurry '^a '^b '^c (f: a -> b -> c) (a: a, b: b) : c =
  f a b

-- | A function that ignores its second argument: `const x y` is `x`.
-- Handy as `map (const 0) xs`.
def const '^a '^b (x: a) (_: b) : a =
  x

-- | The identity function: `id x` is `x`.
def id '^a (x: a) : a =
  x

-- | Apply `f` to `x` `n` times in sequence: `iterate 3 f x` is
-- `f (f (f x))`. A zero or negative `n` returns `x` unchanged. Note
-- that `n` is an `i32`.
def iterate 'a (n: i32) (f: a -> a) (x: a) : a =
  loop y = x for i < n do f y

-- | Apply `f` repeatedly, starting from `x`, until `p` holds of the
-- current value, and return that value. `p` is tested before every
-- step, so when `p x` holds no step is taken. Does not terminate if
-- `p` never becomes true.
def iterate_until 'a (p: a -> bool) (f: a -> a) (x: a) : a =
  loop y = x while !(p y) do f y

-- | Apply `f` repeatedly, starting from `x`, as long as `p` holds of
-- the current value, and return the first value for which it fails.
-- When `p x` is already false no step is taken.
def iterate_while 'a (p: a -> bool) (f: a -> a) (x: a) : a =
  loop y = x while p y do f y
