-- | The futhark-rs prelude: the names every program sees without
-- importing anything.
--
-- The compiler loads this file (as `/prelude/prelude`) and opens it
-- into every program file outside `/prelude`. It re-exports the files
-- below and adds a few old conveniences.

open import "soacs"

open import "array"

open import "math"

open import "functional"

open import "ad"

-- Conversions kept for old programs; prefer the number modules, as in
-- `f32.i32` or `i32.f32`.

-- | Convert an `i32` to the nearest `f32`. The same as `f32.i32`.
def r32 (x: i32) : f32 =
  f32.i32 x

-- | Convert an `f32` to `i32`, rounding toward zero. The result is
-- meaningless for NaN, infinities and values outside the `i32` range.
-- The same as `i32.f32`.
def t32 (x: f32) : i32 =
  i32.f32 x

-- | Convert an `i32` to `f64` (exactly). The same as `f64.i32`.
def r64 (x: i32) : f64 =
  f64.i32 x

-- | Convert an `f64` to `i32` (not `i64`), rounding toward zero. The
-- result is meaningless for NaN, infinities and values outside the
-- `i32` range. The same as `i32.f64`.
def t64 (x: f64) : i32 =
  i32.f64 x

-- | Logical negation as a function: `not b` is `!b`. Handy as an
-- argument, as in `filter (p >-> not) xs`.
def not (x: bool) : bool =
  !x

-- Debugging helpers, deprecated in favour of the attributes they apply.

-- | Return `x` unchanged while keeping the optimiser from looking
-- through it, e.g. to stop a computation from being simplified away
-- in a benchmark. Deprecated: write `#[opaque] x` instead.
def opaque 't (x: t) : t =
  #[opaque] x

-- | Return `x` unchanged; the interpreter also prints the value each
-- time it is evaluated. Compiled code ignores it.
-- Deprecated: write `#[trace] x` instead.
def trace 't (x: t) : t =
  #[trace] x

-- | Return `x` unchanged; under the interactive debugger (the REPL),
-- evaluation stops here so local variables can be inspected. Compiled
-- code ignores it. Deprecated: write `#[break] x` instead.
def break 't (x: t) : t =
  #[break] x
