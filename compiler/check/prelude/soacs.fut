-- | The second-order array combinators: the parallel building blocks.
--
-- Everything here is data-parallel. The functions passed to `reduce`,
-- `scan`, `hist` and friends must be associative (and, where stated,
-- commutative) with the given neutral element; that is a promise the
-- caller makes and that nobody checks. Work is linear in the input
-- length unless stated otherwise, and span is logarithmic for the
-- reductions and scans.

import "zip"

-- Mapping

-- | Apply `f` to every element: `map f [x0, x1, ...]` is
-- `[f x0, f x1, ...]`. The result is a fresh array of the same length.
-- Work O(n), fully parallel.
def map 'a [n] 'x (f: a -> x) (as: [n]a) : *[n]x =
  intrinsics.map f as

-- | The same as `map`; the name matches `map2` to `map5`.
def map1 'a [n] 'x (f: a -> x) (as: [n]a) : *[n]x =
  map f as

-- | Apply a two-argument function elementwise to two arrays of the
-- same length: `map2 (+) [1, 2] [10, 20]` is `[11, 22]`.
def map2 'a 'b [n] 'x (f: a -> b -> x) (as: [n]a) (bs: [n]b) : *[n]x =
  map (\(x, y) -> f x y) (zip as bs)

-- | Apply a three-argument function elementwise to three arrays of
-- the same length.
def map3 'a 'b 'c [n] 'x (f: a -> b -> c -> x) (as: [n]a) (bs: [n]b) (cs: [n]c) : *[n]x =
  map (\(x, y, z) -> f x y z) (zip3 as bs cs)

-- | Apply a four-argument function elementwise to four arrays of the
-- same length.
def map4 'a 'b 'c 'd [n] 'x (f: a -> b -> c -> d -> x) (as: [n]a) (bs: [n]b) (cs: [n]c) (ds: [n]d) : *[n]x =
  map (\(x, y, z, w) -> f x y z w) (zip4 as bs cs ds)

-- | Apply a five-argument function elementwise to five arrays of the
-- same length.
def map5 'a 'b 'c 'd 'e [n] 'x (f: a -> b -> c -> d -> e -> x) (as: [n]a) (bs: [n]b) (cs: [n]c) (ds: [n]d) (es: [n]e) : *[n]x =
  map (\(x, y, z, w, v) -> f x y z w v) (zip5 as bs cs ds es)

-- Reductions

-- | Combine all elements with `op`: `reduce (+) 0 [1, 2, 3]` is `6`.
-- `op` must be associative with identity `ne`; the grouping of the
-- applications is unspecified, so a non-associative `op` gives an
-- unspecified result. The empty array gives `ne`. When the elements
-- are arrays, `op` must return arrays of the shape of `ne`.
-- Work O(n), span O(log n).
def reduce [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a) : a =
  intrinsics.reduce op ne as

-- | Like `reduce`, but `op` is also promised to be commutative, which
-- lets the implementation combine elements in any order. Use it for
-- operators such as `+` on integers, `max` or `min`.
def reduce_comm [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a) : a =
  intrinsics.reduce_comm op ne as

-- | Inclusive prefix combination: element `i` of the result is
-- `as[0] op as[1] op ... op as[i]`, so `scan (+) 0 [1, 2, 3]` is
-- `[1, 3, 6]`. The result has the length of the input; `ne` serves
-- only as the identity of `op` and never shows up as an extra element.
-- Work O(n), span O(log n).
def scan [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a) : *[n]a =
  intrinsics.scan op ne as

-- | Exclusive prefix combination: element 0 of the result is `ne` and
-- element `i` is `as[0] op ... op as[i-1]`, so `exscan (+) 0 [1, 2, 3]`
-- is `[0, 1, 3]`. The last input element takes part in no result.
-- Work O(n), span O(log n).
def exscan [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a) : *[n]a =
  let incl = scan op ne as
  in map (\i -> if i == 0 then ne else incl[i - 1]) (0..<n)

-- | True when `f` holds for every element; true for the empty array.
-- Work O(n), span O(log n).
def all [n] 'a (f: a -> bool) (as: [n]a) : bool =
  reduce_comm (&&) true (map f as)

-- | True when `f` holds for at least one element; false for the empty
-- array. Work O(n), span O(log n).
def any [n] 'a (f: a -> bool) (as: [n]a) : bool =
  reduce_comm (||) false (map f as)

-- Histograms

-- | Build a histogram of `k` bins, all starting at `ne`: each value
-- `as[j]` is combined with `op` into bin `is[j]`. Indices outside
-- `[0, k)` are skipped. `op` must be associative and commutative with
-- identity `ne`, since the order of the updates to a bin is unspecified.
-- Work O(n + k).
def hist 'a [n] (op: a -> a -> a) (ne: a) (k: i64) (is: [n]i64) (as: [n]a) : *[k]a =
  intrinsics.hist_1d 1 (map (\_ -> ne) (0..<k)) op ne is as

-- | Like `hist`, but the bins are the consumed array `dest` with its
-- current contents: each `as[j]` is combined with `f` into
-- `dest[is[j]]`. Indices outside `[0, k)` are skipped. `f` must be
-- associative and commutative with identity `ne`. Work O(n), plus the
-- size of `dest` when it has to be copied.
def reduce_by_index 'a [k] [n] (dest: *[k]a) (f: a -> a -> a) (ne: a) (is: [n]i64) (as: [n]a) : *[k]a =
  intrinsics.hist_1d 1 dest f ne is as

-- | Two-dimensional `reduce_by_index`: each `as[j]` is combined into
-- `dest[r, c]` where `(r, c) = is[j]`. Index pairs outside the shape
-- of `dest` are skipped.
def reduce_by_index_2d 'a [k] [n] [m] (dest: *[k][m]a) (f: a -> a -> a) (ne: a) (is: [n](i64, i64)) (as: [n]a) : *[k][m]a =
  intrinsics.hist_2d 1 dest f ne is as

-- | Three-dimensional `reduce_by_index`: each `as[j]` is combined into
-- `dest[p, r, c]` where `(p, r, c) = is[j]`. Index triples outside the
-- shape of `dest` are skipped.
def reduce_by_index_3d 'a [k] [n] [m] [l] (dest: *[k][m][l]a) (f: a -> a -> a) (ne: a) (is: [n](i64, i64, i64)) (as: [n]a) : *[k][m][l]a =
  intrinsics.hist_3d 1 dest f ne is as

-- Scattering

-- | Write `vs[j]` to position `is[j]` of the consumed array `dest` and
-- return it. Indices outside `[0, k)` are skipped. When several
-- in-range writes hit one position, which of them wins is unspecified.
-- Work O(n); `dest` is updated in place.
def scatter 't [k] [n] (dest: *[k]t) (is: [n]i64) (vs: [n]t) : *[k]t =
  intrinsics.scatter dest is vs

-- | Like `scatter`, but into a new array of `k` copies of `x`:
-- `spread 4 0 [1, 3] [7, 9]` is `[0, 7, 0, 9]`. Out-of-range indices
-- are skipped and duplicate indices leave an unspecified winner.
-- Work O(k + n).
def spread 't [n] (k: i64) (x: t) (is: [n]i64) (vs: [n]t) : *[k]t =
  scatter (map (\_ -> x) (0..<k)) is vs

-- | Two-dimensional `scatter`: write `vs[j]` to `dest[r, c]` where
-- `(r, c) = is[j]`. Index pairs outside the shape of `dest` are
-- skipped; duplicates leave an unspecified winner.
def scatter_2d 't [k] [n] [l] (dest: *[k][n]t) (is: [l](i64, i64)) (vs: [l]t) : *[k][n]t =
  intrinsics.scatter_2d dest is vs

-- | Three-dimensional `scatter`: write `vs[j]` to `dest[p, r, c]` where
-- `(p, r, c) = is[j]`. Index triples outside the shape of `dest` are
-- skipped; duplicates leave an unspecified winner.
def scatter_3d 't [k] [n] [o] [l] (dest: *[k][n][o]t) (is: [l](i64, i64, i64)) (vs: [l]t) : *[k][n][o]t =
  intrinsics.scatter_3d dest is vs

-- Filtering and partitioning

-- | For a permutation `dest` of `0..<n`, the array whose element
-- `dest[i]` is `xs[i]`. It scatters the source positions and then
-- gathers, so every element is moved exactly once.
local def permute [n] 'a (dest: [n]i64) (xs: [n]a) : *[n]a =
  let from = scatter (map (\_ -> 0i64) (0..<n)) dest (0..<n)
  in map (\i -> xs[i]) from

-- | The elements for which `p` holds, in their original order:
-- `filter (> 2) [3, 1, 4, 1, 5]` is `[3, 4, 5]`. The length of the
-- result is known only at run time. Work O(n), span O(log n).
def filter [n] 'a (p: a -> bool) (as: [n]a) : *[]a =
  let keep = map (\x -> if p x then 1i64 else 0i64) as
  let ends = scan (+) 0 keep
  let m = if n == 0 then 0 else ends[n - 1]
  let slots = map2 (\k e -> if k == 1 then e - 1 else -1) keep ends
  let from = scatter (map (\_ -> 0i64) (0..<m)) slots (0..<n)
  in map (\i -> as[i]) from

-- | Split an array in two: the elements for which `p` holds, then the
-- others. Both parts keep the original order, and together they have
-- the length of the input. Work O(n), span O(log n).
def partition [n] 'a (p: a -> bool) (as: [n]a) : ?[k].([k]a, [n - k]a) =
  let yes = map (\x -> if p x then 1i64 else 0i64) as
  let ends = scan (+) 0 yes
  let k = if n == 0 then 0 else ends[n - 1]
  -- An element that fails `p` goes after all `k` passing ones, behind
  -- the failing elements before it (`i - e` of them).
  let dest = map3 (\y e i -> if y == 1 then e - 1 else k + i - e) yes ends (0..<n)
  let out = permute dest as
  in (out[:k], out[k:] :> [n - k]a)

-- | Split an array in three: the elements for which `p1` holds, then
-- those for which `p1` fails but `p2` holds, then the rest. Every part
-- keeps the original order. Work O(n), span O(log n).
def partition2 [n] 'a (p1: a -> bool) (p2: a -> bool) (as: [n]a) : ?[k][l].([k]a, [l]a, [n - k - l]a) =
  let classes = map (\x -> if p1 x then (1i64, 0i64) else if p2 x then (0, 1) else (0, 0)) as
  let ends = scan (\(a1, b1) (a2, b2) -> (a1 + a2, b1 + b2)) (0, 0) classes
  let (k, l) = if n == 0 then (0, 0) else ends[n - 1]
  -- The running counts `e1`, `e2` include the element itself; an element
  -- of the third group has `e1 + e2` elements of the others before it.
  let place (c1: i64, c2: i64) (e1: i64, e2: i64) (i: i64) : i64 =
    if c1 == 1 then e1 - 1
    else if c2 == 1 then k + e2 - 1
    else k + l + i - e1 - e2
  let dest = map3 place classes ends (0..<n)
  let out = permute dest as
  in (out[:k], out[k:k + l] :> [l]a, out[k + l:] :> [n - k - l]a)

-- Irregular mapping

-- | Map each element to a segment of any length plus one fixed-size
-- value, and flatten the segments. For `n` inputs producing `m`
-- segment elements in all, the result is (segment lengths, flags that
-- are true at the first element of every non-empty segment, segment
-- start offsets, i.e. the exclusive prefix sum of the lengths, all
-- segments concatenated in order, the fixed values). Work O(n + m).
def flatmap [n] 'a 'b 'c (f: a -> ?[k].([k]b, c)) (as: [n]a) : ?[m].([n]i64, [m]bool, [n]i64, [m]b, [n]c) =
  intrinsics.flatmap f as

-- | `flatmap` for functions that produce only a segment: the result is
-- (segment lengths, segment start flags, segment offsets, all segments
-- concatenated). Work O(n + m).
def flatmap' [n] 'a 'b (f: a -> ?[k].[k]b) (as: [n]a) : ?[m].([n]i64, [m]bool, [n]i64, [m]b) =
  let (lens, flags, offsets, elems, _) = intrinsics.flatmap (\x -> (f x, ())) as
  in (lens, flags, offsets, elems)
