-- | Converting between arrays of tuples and tuples of arrays.
--
-- Arrays of tuples are stored as one array per tuple component, so
-- zipping and unzipping only regroup arrays and cost (close to)
-- nothing. All arrays passed together must have the same length;
-- the types demand it, and a size coercion that gets it wrong fails
-- at run time.

-- | A plain map, kept private: this file imports nothing, and the
-- public `map` lives in soacs.fut, which itself imports this file.
local def internal_map 'a [n] 'x (f: a -> x) (as: [n]a) : *[n]x =
  intrinsics.map f as

-- | Pair up the elements of two arrays of the same length:
-- `zip [1, 2] [true, false]` is `[(1, true), (2, false)]`.
def zip [n] 'a 'b (as: [n]a) (bs: [n]b) : *[n](a, b) =
  intrinsics.zip as bs

-- | The same as `zip`; the name matches `zip3`, `zip4` and `zip5`.
def zip2 [n] 'a 'b (as: [n]a) (bs: [n]b) : *[n](a, b) =
  zip as bs

-- | Combine three arrays of the same length into an array of triples.
def zip3 [n] 'a 'b 'c (as: [n]a) (bs: [n]b) (cs: [n]c) : *[n](a, b, c) =
  internal_map (\(x, (y, z)) -> (x, y, z)) (zip as (zip bs cs))

-- | Combine four arrays of the same length into an array of 4-tuples.
def zip4 [n] 'a 'b 'c 'd (as: [n]a) (bs: [n]b) (cs: [n]c) (ds: [n]d) : *[n](a, b, c, d) =
  internal_map (\((x, y), (z, w)) -> (x, y, z, w)) (zip (zip as bs) (zip cs ds))

-- | Combine five arrays of the same length into an array of 5-tuples.
def zip5 [n] 'a 'b 'c 'd 'e (as: [n]a) (bs: [n]b) (cs: [n]c) (ds: [n]d) (es: [n]e) : *[n](a, b, c, d, e) =
  internal_map (\((x, y), (z, w, v)) -> (x, y, z, w, v)) (zip (zip as bs) (zip3 cs ds es))

-- | Split an array of pairs into the array of first components and
-- the array of second components. The inverse of `zip`.
def unzip [n] 'a 'b (xs: [n](a, b)) : ([n]a, [n]b) =
  intrinsics.unzip xs

-- | The same as `unzip`; the name matches `unzip3`, `unzip4` and `unzip5`.
def unzip2 [n] 'a 'b (xs: [n](a, b)) : ([n]a, [n]b) =
  unzip xs

-- | Split an array of triples into three arrays. The inverse of `zip3`.
def unzip3 [n] 'a 'b 'c (xs: [n](a, b, c)) : ([n]a, [n]b, [n]c) =
  let (as, rest) = unzip (internal_map (\(x, y, z) -> (x, (y, z))) xs)
  let (bs, cs) = unzip rest
  in (as, bs, cs)

-- | Split an array of 4-tuples into four arrays. The inverse of `zip4`.
def unzip4 [n] 'a 'b 'c 'd (xs: [n](a, b, c, d)) : ([n]a, [n]b, [n]c, [n]d) =
  let (front, back) = unzip (internal_map (\(x, y, z, w) -> ((x, y), (z, w))) xs)
  let (as, bs) = unzip front
  let (cs, ds) = unzip back
  in (as, bs, cs, ds)

-- | Split an array of 5-tuples into five arrays. The inverse of `zip5`.
def unzip5 [n] 'a 'b 'c 'd 'e (xs: [n](a, b, c, d, e)) : ([n]a, [n]b, [n]c, [n]d, [n]e) =
  let (front, back) = unzip (internal_map (\(x, y, z, w, v) -> ((x, y), (z, w, v))) xs)
  let (as, bs) = unzip front
  let (cs, ds, es) = unzip3 back
  in (as, bs, cs, ds, es)
