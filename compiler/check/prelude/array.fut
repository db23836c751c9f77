-- | Everyday operations on arrays: sizes, slicing, building,
-- reshaping, sequential folds. Also re-exports everything in zip.fut.
--
-- Operations that select elements (`head`, `last`, `take`, ...) fail
-- at run time when the array is too short. Operations documented as
-- views (`tail`, `take`, `reverse`, `transpose`, ...) need not copy
-- their input; those returning unique arrays always build a new one.

import "soacs"
import "functional"
open import "zip"

-- Size queries

-- | The number of elements in the outer dimension. O(1).
def length [n] 't (_: [n]t) : i64 =
  n

-- | Whether the outer dimension is empty. O(1).
def null [n] 't (_: [n]t) : bool =
  n == 0

-- Selecting elements

-- | The first element. Fails at run time on an empty array.
def head [n] 't (x: [n]t) : t =
  x[0]

-- | The last element. Fails at run time on an empty array.
def last [n] 't (x: [n]t) : t =
  x[n - 1]

-- | Everything but the first element, as a view. Fails at run time on
-- an empty array.
def tail [n] 't (x: [n]t) : [n - 1]t =
  x[1:n]

-- | Everything but the last element, as a view. Fails at run time on
-- an empty array.
def init [n] 't (x: [n]t) : [n - 1]t =
  x[:n - 1]

-- | The first `i` elements, as a view. Fails at run time unless
-- `0 <= i <= n`.
def take [n] 't (i: i64) (x: [n]t) : [i]t =
  x[:i]

-- | Everything after the first `i` elements, as a view. Fails at run
-- time unless `0 <= i <= n`.
def drop [n] 't (i: i64) (x: [n]t) : [n - i]t =
  x[i:n]

-- | The same array with its length stated as `n`, for when the type
-- checker cannot see that two sizes agree. Fails at run time when the
-- array does not have exactly `n` elements. O(1).
def sized [m] 't (n: i64) (xs: [m]t) : [n]t =
  xs :> [n]t

-- | Cut an array in two after its first `n` elements. There is no
-- index argument: both parts' sizes come from the argument's type, so
-- write `split (xs :> [k + (len - k)]t)` to choose the cut point `k`.
-- The parts are views.
def split [n] [m] 't (xs: [n + m]t) : ([n]t, [m]t) =
  (xs[:n], xs[n:] :> [m]t)

-- | The elements in reverse order, as a view. O(1).
def reverse [n] 't (x: [n]t) : [n]t =
  x[::-1]

-- Building arrays

-- | Concatenate two arrays along the outer dimension:
-- `[1, 2] ++ [3]` is `[1, 2, 3]`. Rows of multi-dimensional arrays
-- must have the same shape. Work O(n + m).
def (++) [n] [m] 't (xs: [n]t) (ys: [m]t) : *[n + m]t =
  intrinsics.concat xs ys

-- | The same as `++`, as a named function.
def concat [n] [m] 't (xs: [n]t) (ys: [m]t) : *[n + m]t =
  xs ++ ys

-- | The array `[0, 1, ..., n-1]`: empty when `n` is 0, and a run-time
-- error when `n` is negative. Work O(n).
def iota (n: i64) : *[n]i64 =
  0..1..<n

-- | The valid indices of an array: `iota` of its length.
def indices [n] 't (_: [n]t) : *[n]i64 =
  iota n

-- | Rotate the elements `r` places to the left: element `i` of the
-- result is `a[(i + r) % n]`. A negative `r` rotates to the right, and
-- `r` may exceed `n`. Work O(n).
def rotate [n] 't (r: i64) (a: [n]t) : *[n]t =
  map (\i -> a[(i + r) % n]) (iota n)

-- | An array of `n` copies of `x`; a run-time error when `n` is
-- negative. Work O(n).
def replicate 't (n: i64) (x: t) : *[n]t =
  map (\_ -> x) (iota n)

-- | Like `replicate`, with the length taken from the type the context
-- expects, as in `let zeros : [k]f32 = rep 0`.
def rep 't [n] (x: t) : *[n]t =
  replicate n x

-- | A deep copy of a value that shares no memory with the original,
-- so it may be consumed (updated in place) freely. Work proportional
-- to the size of the value.
def copy 't (a: t) : *t =
  intrinsics.manifest a

-- | Like `copy`, and also guarantees that arrays are laid out in plain
-- row-major order, undoing views such as `transpose` or strided
-- slices. Work proportional to the size of the value.
def manifest 't (a: t) : *t =
  intrinsics.manifest a

-- | Build `[f 0, f 1, ..., f (n-1)]`. Work O(n) calls of `f`.
def tabulate 'a (n: i64) (f: i64 -> a) : *[n]a =
  map f (iota n)

-- | Build an `n` by `m` array whose element `[i, j]` is `f i j`.
def tabulate_2d 'a (n: i64) (m: i64) (f: i64 -> i64 -> a) : *[n][m]a =
  map (\i -> tabulate m (f i)) (iota n)

-- | Build an `n` by `m` by `o` array whose element `[i, j, k]` is
-- `f i j k`.
def tabulate_3d 'a (n: i64) (m: i64) (o: i64) (f: i64 -> i64 -> i64 -> a) : *[n][m][o]a =
  map (\i -> tabulate_2d m o (f i)) (iota n)

-- Reshaping

-- | Merge the two outer dimensions into one, row by row:
-- `flatten [[1, 2], [3, 4]]` is `[1, 2, 3, 4]`.
def flatten [n] [m] 't (xs: [n][m]t) : [n * m]t =
  intrinsics.flatten xs

-- | Merge the three outer dimensions into one.
def flatten_3d [n] [m] [l] 't (xs: [n][m][l]t) : [n * m * l]t =
  flatten (flatten xs)

-- | Merge the four outer dimensions into one.
def flatten_4d [n] [m] [l] [k] 't (xs: [n][m][l][k]t) : [n * m * l * k]t =
  flatten (flatten_3d xs)

-- | Split the outer dimension into `n` rows of `m` elements; the
-- inverse of `flatten`. `n` and `m` come from the argument's type or
-- the expected result type, e.g. `unflatten (xs :> [rows * cols]t)`.
-- Fails at run time unless the sizes multiply out and are not negative.
def unflatten 't [n] [m] (xs: [n * m]t) : [n][m]t =
  intrinsics.unflatten n m xs

-- | Split the outer dimension into three; the inverse of `flatten_3d`.
def unflatten_3d 't [n] [m] [l] (xs: [n * m * l]t) : [n][m][l]t =
  unflatten (unflatten xs)

-- | Split the outer dimension into four; the inverse of `flatten_4d`.
def unflatten_4d 't [n] [m] [l] [k] (xs: [n * m * l * k]t) : [n][m][l][k]t =
  unflatten_3d (unflatten xs)

-- | Swap the two outer dimensions: element `[i, j]` of the result is
-- `a[j, i]`. Inner dimensions stay in place. The result may be a view
-- of the input rather than a copy; `manifest` forces a row-major copy.
def transpose [n] [m] 't (a: [n][m]t) : [m][n]t =
  intrinsics.transpose a

-- Folds

-- | Whether every element is true; true for the empty array.
-- Work O(n), span O(log n).
def and [n] (xs: [n]bool) : bool =
  all id xs

-- | Whether some element is true; false for the empty array.
-- Work O(n), span O(log n).
def or [n] (xs: [n]bool) : bool =
  any id xs

-- | Sequential left fold: `foldl f acc [b0, b1, b2]` is
-- `f (f (f acc b0) b1) b2`. Unlike `reduce`, `f` need not be
-- associative, but there is no parallelism: O(n) sequential steps.
def foldl [n] 'a 'b (f: a -> b -> a) (acc: a) (bs: [n]b) : a =
  loop r = acc for b in bs do f r b

-- | Sequential right fold: `foldr f acc [b0, b1, b2]` is
-- `f b0 (f b1 (f b2 acc))`. O(n) sequential steps.
def foldr [n] 'a 'b (f: b -> a -> a) (acc: a) (bs: [n]b) : a =
  loop r = acc for b in reverse bs do f b r
