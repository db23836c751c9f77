-- | Numbers: the module types describing number types, and one module
-- per primitive type (`i32`, `f64`, `bool`, ...) holding its
-- operations, as in `f32.sqrt x`, `i64.max a b` or `x u8.>>> 2`.
--
-- A module named after a type converts *from* that type: `f32.i64 n`
-- turns an `i64` into an `f32`, and `i32.f32 x` truncates an `f32`
-- toward zero. Every module is sealed by its module type, so it has
-- exactly the members listed there.
--
-- Integer arithmetic wraps around. Unlike the built-in operators, the
-- integer module operators `/ % // %% **` are not guarded by run-time
-- checks: a zero divisor or a negative exponent gives no defined result
-- (the interpreter stops with an error, compiled code may not).

import "soacs"

-- Module types

-- | Types that any primitive value can be converted to.
--
-- Into an integer type, a signed source is sign-extended (or
-- truncated) when the target is signed; every other integer source is
-- zero-extended (or truncated), so `u64.i8 (-1)` is 255. Floats are
-- truncated toward zero, which is meaningless for NaN, infinities and
-- values out of range. Into a float type, integers convert to the
-- nearest representable value.
module type from_prim = {
  -- | The type this module is about.
  type t

  -- | Convert from `i8`.
  val i8: i8 -> t

  -- | Convert from `i16`.
  val i16: i16 -> t

  -- | Convert from `i32`.
  val i32: i32 -> t

  -- | Convert from `i64`.
  val i64: i64 -> t

  -- | Convert from `u8`.
  val u8: u8 -> t

  -- | Convert from `u16`.
  val u16: u16 -> t

  -- | Convert from `u32`.
  val u32: u32 -> t

  -- | Convert from `u64`.
  val u64: u64 -> t

  -- | Convert from `f16`.
  val f16: f16 -> t

  -- | Convert from `f32`.
  val f32: f32 -> t

  -- | Convert from `f64`.
  val f64: f64 -> t

  -- | Convert from `bool`: `true` is 1 and `false` is 0 (for `bool`
  -- itself, the identity).
  val bool: bool -> t
}

-- | Number types with arithmetic, comparisons and reductions.
module type numeric = {
  include from_prim

  -- | Addition; integers wrap around on overflow.
  val (+): t -> t -> t

  -- | Subtraction; integers wrap around on overflow.
  val (-): t -> t -> t

  -- | Multiplication; integers wrap around on overflow.
  val (*): t -> t -> t

  -- | Division. Signed integer division rounds toward negative infinity
  -- (see `//` for C-style division). Integer division by zero has no
  -- defined result.
  val (/): t -> t -> t

  -- | The remainder matching `/`: for signed integers it takes the sign
  -- of the divisor, so `-7 % 2` is 1. A zero integer divisor has no
  -- defined result. For floats, the sign of a nonzero result may
  -- follow either operand, depending on the backend.
  val (%): t -> t -> t

  -- | `x ** y` raises `x` to the power `y`. For integers it wraps
  -- around, and a negative exponent has no defined result.
  val (**): t -> t -> t

  -- | Convert to `i64`; floats are truncated toward zero.
  val to_i64: t -> i64

  -- | Equality. For floats, NaN equals nothing, itself included.
  val (==): t -> t -> bool

  -- | Less than.
  val (<): t -> t -> bool

  -- | Greater than.
  val (>): t -> t -> bool

  -- | Less than or equal.
  val (<=): t -> t -> bool

  -- | Greater than or equal.
  val (>=): t -> t -> bool

  -- | Inequality.
  val (!=): t -> t -> bool

  -- | Arithmetic negation. For integers it wraps: the negation of the
  -- least signed value is itself, and unsigned values wrap modulo 2^n.
  val neg: t -> t

  -- | The larger of two values. For floats, a NaN operand is ignored.
  val max: t -> t -> t

  -- | The smaller of two values. For floats, a NaN operand is ignored.
  val min: t -> t -> t

  -- | Absolute value. For signed integers the least value is its own
  -- absolute value; for unsigned ones this is the identity.
  val abs: t -> t

  -- | The sign: -1, 0 or 1 (0 or 1 for unsigned integers).
  val sgn: t -> t

  -- | The greatest value of the type; infinity for floats.
  val highest: t

  -- | The least value of the type; 0 for unsigned integers and negative
  -- infinity for floats.
  val lowest: t

  -- | The sum of the elements; 0 for an empty array. Work O(n), span
  -- O(log n).
  val sum [n]: [n]t -> t

  -- | The product of the elements; 1 for an empty array. Work O(n),
  -- span O(log n).
  val product [n]: [n]t -> t

  -- | The largest element; `lowest` for an empty array. Work O(n),
  -- span O(log n).
  val maximum [n]: [n]t -> t

  -- | The smallest element; `highest` for an empty array. Work O(n),
  -- span O(log n).
  val minimum [n]: [n]t -> t
}

-- | Integer types: `numeric` plus truncating division and bit
-- operations. Bit 0 is the least significant bit.
module type integral = {
  include numeric

  -- | Division rounding toward zero, as in C. Division by zero has no
  -- defined result. For unsigned types the same as `/`.
  val (//): t -> t -> t

  -- | The remainder matching `//`: it takes the sign of the dividend, so
  -- `-7 %% 2` is -1. For unsigned types the same as `%`.
  val (%%): t -> t -> t

  -- | Bitwise and.
  val (&): t -> t -> t

  -- | Bitwise or.
  val (|): t -> t -> t

  -- | Bitwise exclusive or.
  val (^): t -> t -> t

  -- | Bitwise complement: every bit flipped.
  val not: t -> t

  -- | `x << k` shifts left by `k` bits, filling with zeroes. The result
  -- is unspecified when `k` is negative or at least `num_bits`.
  val (<<): t -> t -> t

  -- | `x >> k` shifts the bit pattern right by `k` bits, copying the
  -- top bit into the vacated positions (arithmetic shift), also in
  -- the unsigned modules. Use `>>>` for a logical shift.
  val (>>): t -> t -> t

  -- | `x >>> k` shifts right by `k` bits, filling with zeroes (logical
  -- shift).
  val (>>>): t -> t -> t

  -- | The width of the type in bits.
  val num_bits: i32

  -- | `get_bit i x` is bit `i` of `x`, as 0 or 1.
  val get_bit: i32 -> t -> i32

  -- | `set_bit i x b` is `x` with bit `i` set to `b`, which must be 0
  -- or 1.
  val set_bit: i32 -> t -> i32 -> t

  -- | The number of bits that are 1.
  val popc: t -> i32

  -- | The upper half of the double-width product of `x` and `y`
  -- (signed or unsigned according to the type); `*` gives the lower
  -- half.
  val mul_hi: (x: t) -> (y: t) -> t

  -- | `mad_hi a b c` is `mul_hi a b + c`, possibly computed faster.
  val mad_hi: (a: t) -> (b: t) -> (c: t) -> t

  -- | The number of leading (most significant) zero bits; `num_bits`
  -- for 0.
  val clz: t -> i32

  -- | The number of trailing (least significant) zero bits; `num_bits`
  -- for 0.
  val ctz: t -> i32
}

-- | Real-number types: `numeric` plus the usual functions of real
-- analysis, following IEEE 754 and the C maths library. Angles are in
-- radians.
module type real = {
  include numeric

  -- | The reciprocal, `1 / x`.
  val recip: t -> t

  -- | `from_fraction a b` is `a / b`, each converted first.
  val from_fraction: i64 -> i64 -> t

  -- | Convert to `f64`.
  val to_f64: t -> f64

  -- | Square root; NaN for negative numbers.
  val sqrt: t -> t

  -- | Reciprocal square root, `1 / sqrt x`.
  val rsqrt: t -> t

  -- | Cube root; defined for negative numbers too.
  val cbrt: t -> t

  -- | The exponential function, e to the power `x`.
  val exp: t -> t

  -- | Sine.
  val sin: t -> t

  -- | Cosine.
  val cos: t -> t

  -- | Tangent.
  val tan: t -> t

  -- | `sinpi x` is `sin (pi * x)`, computed more precisely.
  val sinpi: t -> t

  -- | `cospi x` is `cos (pi * x)`, computed more precisely.
  val cospi: t -> t

  -- | `tanpi x` is `tan (pi * x)`, computed more precisely.
  val tanpi: t -> t

  -- | Inverse sine, in [-pi/2, pi/2]; NaN outside [-1, 1].
  val asin: t -> t

  -- | Inverse cosine, in [0, pi]; NaN outside [-1, 1].
  val acos: t -> t

  -- | Inverse tangent, in [-pi/2, pi/2].
  val atan: t -> t

  -- | `asin x / pi`.
  val asinpi: t -> t

  -- | `acos x / pi`.
  val acospi: t -> t

  -- | `atan x / pi`.
  val atanpi: t -> t

  -- | Hyperbolic sine.
  val sinh: t -> t

  -- | Hyperbolic cosine.
  val cosh: t -> t

  -- | Hyperbolic tangent.
  val tanh: t -> t

  -- | Inverse hyperbolic sine.
  val asinh: t -> t

  -- | Inverse hyperbolic cosine; NaN below 1.
  val acosh: t -> t

  -- | Inverse hyperbolic tangent; NaN outside [-1, 1].
  val atanh: t -> t

  -- | `atan2 y x` is the angle, in [-pi, pi], from the positive x-axis
  -- to the point (x, y). Note the argument order, as in C.
  val atan2: t -> t -> t

  -- | `atan2pi y x` is `atan2 y x / pi`.
  val atan2pi: t -> t -> t

  -- | `hypot x y` is `sqrt (x*x + y*y)`, without overflow or underflow
  -- in the intermediate squares.
  val hypot: t -> t -> t

  -- | The gamma function.
  val gamma: t -> t

  -- | The natural logarithm of the absolute value of the gamma function.
  val lgamma: t -> t

  -- | The error function.
  val erf: t -> t

  -- | The complementary error function, `1 - erf x`, computed precisely
  -- for large `x`.
  val erfc: t -> t

  -- | Linear interpolation: `lerp a b w` is `a + (b - a) * w`, for a
  -- weight `w` between 0 and 1.
  val lerp: t -> t -> t -> t

  -- | The natural logarithm; NaN for negative numbers and negative
  -- infinity for 0.
  val log: t -> t

  -- | The base-2 logarithm.
  val log2: t -> t

  -- | The base-10 logarithm.
  val log10: t -> t

  -- | `log1p x` is `log (1 + x)`, precise also for `x` close to 0.
  val log1p: t -> t

  -- | Round up to an integral value.
  val ceil: t -> t

  -- | Round down to an integral value.
  val floor: t -> t

  -- | Round toward zero to an integral value. Computed through the
  -- signed integer type of the same width, so only correct where that
  -- type can hold the result (NaN and infinities give nonsense).
  val trunc: t -> t

  -- | Round to the nearest integral value, ties to even: `round 2.5` is
  -- 2 and `round 3.5` is 4.
  val round: t -> t

  -- | `mad a b c` is `a * b + c`, possibly fused into one operation, so
  -- the rounding of the product is not specified. Use `fma` when it
  -- matters.
  val mad: (a: t) -> (b: t) -> (c: t) -> t

  -- | `fma a b c` is `a * b + c` with a single rounding at the end
  -- (fused multiply-add).
  val fma: (a: t) -> (b: t) -> (c: t) -> t

  -- | Whether the value is an infinity, positive or negative.
  val isinf: t -> bool

  -- | Whether the value is NaN ("not a number").
  val isnan: t -> bool

  -- | Positive infinity.
  val inf: t

  -- | A NaN ("not a number") value.
  val nan: t

  -- | The constant pi, the ratio of a circle's circumference to its
  -- diameter.
  val pi: t

  -- | The constant e, the base of the natural logarithm.
  val e: t
}

-- | IEEE 754 floating-point types: `real` plus access to the bit
-- representation and a few operations on it.
module type float = {
  include real

  -- | The unsigned integer type of the same width as `t`.
  type int_t

  -- | The float whose bit pattern is the given integer.
  val from_bits: int_t -> t

  -- | The bit pattern of a float, as an unsigned integer.
  val to_bits: t -> int_t

  -- | The width of the type in bits.
  val num_bits: i32

  -- | `get_bit i x` is bit `i` of the representation of `x`, as 0 or 1;
  -- bit 0 is the least significant bit of the mantissa.
  val get_bit: i32 -> t -> i32

  -- | `set_bit i x b` is `x` with bit `i` of its representation set to
  -- `b`, which must be 0 or 1.
  val set_bit: i32 -> t -> i32 -> t

  -- | The difference between 1 and the next larger representable value.
  val epsilon: t

  -- | `nextafter x y` is the representable value next to `x` in the
  -- direction of `y`; `y` when the two are equal.
  val nextafter: (x: t) -> (y: t) -> t

  -- | `ldexp x k` is `x` times 2 to the power `k`.
  val ldexp: t -> i32 -> t

  -- | `copysign x y` has the magnitude of `x` and the sign of `y`.
  val copysign: (x: t) -> (y: t) -> t
}

-- Modules

-- | Booleans, as a conversion target: a number converts to `true`
-- exactly when it is nonzero (NaN counts as nonzero).
module bool: (from_prim with t = bool) = {
  type t = bool

  def i8 (x: i8) : t = intrinsics.itob_i8_bool x
  def i16 (x: i16) : t = intrinsics.itob_i16_bool x
  def i32 (x: i32) : t = intrinsics.itob_i32_bool x
  def i64 (x: i64) : t = intrinsics.itob_i64_bool x
  def u8 (x: u8) : t = intrinsics.itob_i8_bool (intrinsics.sign_i8 x)
  def u16 (x: u16) : t = intrinsics.itob_i16_bool (intrinsics.sign_i16 x)
  def u32 (x: u32) : t = intrinsics.itob_i32_bool (intrinsics.sign_i32 x)
  def u64 (x: u64) : t = intrinsics.itob_i64_bool (intrinsics.sign_i64 x)
  def f16 (x: f16) : t = intrinsics.ftob_f16_bool x
  def f32 (x: f32) : t = intrinsics.ftob_f32_bool x
  def f64 (x: f64) : t = intrinsics.ftob_f64_bool x
  def bool (x: bool) : t = x
}

-- | Signed 8-bit integers, from -128 to 127.
module i8: (integral with t = i8) = {
  type t = i8

  -- Conversions.
  def i8 (x: i8) : t = x
  def i16 (x: i16) : t = intrinsics.sext_i16_i8 x
  def i32 (x: i32) : t = intrinsics.sext_i32_i8 x
  def i64 (x: i64) : t = intrinsics.sext_i64_i8 x
  def u8 (x: u8) : t = intrinsics.sign_i8 x
  def u16 (x: u16) : t = intrinsics.zext_i16_i8 (intrinsics.sign_i16 x)
  def u32 (x: u32) : t = intrinsics.zext_i32_i8 (intrinsics.sign_i32 x)
  def u64 (x: u64) : t = intrinsics.zext_i64_i8 (intrinsics.sign_i64 x)
  def f16 (x: f16) : t = intrinsics.fptosi_f16_i8 x
  def f32 (x: f32) : t = intrinsics.fptosi_f32_i8 x
  def f64 (x: f64) : t = intrinsics.fptosi_f64_i8 x
  def bool (x: bool) : t = intrinsics.btoi_bool_i8 x
  def to_i64 (x: t) : i64 = intrinsics.sext_i8_i64 x

  -- Arithmetic; wraps around on overflow.
  def (+) (x: t) (y: t) : t = intrinsics.add8 (x, y)
  def (-) (x: t) (y: t) : t = intrinsics.sub8 (x, y)
  def (*) (x: t) (y: t) : t = intrinsics.mul8 (x, y)
  def (/) (x: t) (y: t) : t = intrinsics.sdiv8 (x, y)
  def (%) (x: t) (y: t) : t = intrinsics.smod8 (x, y)
  def (//) (x: t) (y: t) : t = intrinsics.squot8 (x, y)
  def (%%) (x: t) (y: t) : t = intrinsics.srem8 (x, y)
  def (**) (x: t) (y: t) : t = intrinsics.pow8 (x, y)
  def neg (x: t) : t = 0 - x
  def abs (x: t) : t = intrinsics.abs8 x
  def sgn (x: t) : t = intrinsics.ssignum8 x
  def max (x: t) (y: t) : t = intrinsics.smax8 (x, y)
  def min (x: t) (y: t) : t = intrinsics.smin8 (x, y)

  -- Comparisons.
  def (==) (x: t) (y: t) : bool = intrinsics.eq_i8 (x, y)
  def (<) (x: t) (y: t) : bool = intrinsics.slt8 (x, y)
  def (<=) (x: t) (y: t) : bool = intrinsics.sle8 (x, y)
  def (>) (x: t) (y: t) : bool = y < x
  def (>=) (x: t) (y: t) : bool = y <= x
  def (!=) (x: t) (y: t) : bool = !(x == y)

  -- Bits.
  def (&) (x: t) (y: t) : t = intrinsics.and8 (x, y)
  def (|) (x: t) (y: t) : t = intrinsics.or8 (x, y)
  def (^) (x: t) (y: t) : t = intrinsics.xor8 (x, y)
  def not (x: t) : t = intrinsics.complement8 x
  def (<<) (x: t) (y: t) : t = intrinsics.shl8 (x, y)
  def (>>) (x: t) (y: t) : t = intrinsics.ashr8 (x, y)
  def (>>>) (x: t) (y: t) : t = intrinsics.lshr8 (x, y)
  def num_bits : i32 = 8
  def get_bit (bit: i32) (x: t) : i32 = if ((x >>> i32 bit) & 1) == 0 then 0 else 1
  def set_bit (bit: i32) (x: t) (b: i32) : t = (x & not (1 << i32 bit)) | (i32 b << i32 bit)
  def popc (x: t) : i32 = intrinsics.popc8 x
  def clz (x: t) : i32 = intrinsics.clz8 x
  def ctz (x: t) : i32 = intrinsics.ctz8 x
  def mul_hi (x: t) (y: t) : t = intrinsics.smul_hi8 (x, y)
  def mad_hi (a: t) (b: t) (c: t) : t = intrinsics.smad_hi8 (a, b, c)

  -- Bounds and reductions.
  def highest : t = 127
  def lowest : t = -128i8
  def sum [n] (xs: [n]t) : t = reduce (+) 0 xs
  def product [n] (xs: [n]t) : t = reduce (*) 1 xs
  def maximum [n] (xs: [n]t) : t = reduce max lowest xs
  def minimum [n] (xs: [n]t) : t = reduce min highest xs
}

-- | Signed 16-bit integers, from -32768 to 32767.
module i16: (integral with t = i16) = {
  type t = i16

  -- Conversions.
  def i8 (x: i8) : t = intrinsics.sext_i8_i16 x
  def i16 (x: i16) : t = x
  def i32 (x: i32) : t = intrinsics.sext_i32_i16 x
  def i64 (x: i64) : t = intrinsics.sext_i64_i16 x
  def u8 (x: u8) : t = intrinsics.zext_i8_i16 (intrinsics.sign_i8 x)
  def u16 (x: u16) : t = intrinsics.sign_i16 x
  def u32 (x: u32) : t = intrinsics.zext_i32_i16 (intrinsics.sign_i32 x)
  def u64 (x: u64) : t = intrinsics.zext_i64_i16 (intrinsics.sign_i64 x)
  def f16 (x: f16) : t = intrinsics.fptosi_f16_i16 x
  def f32 (x: f32) : t = intrinsics.fptosi_f32_i16 x
  def f64 (x: f64) : t = intrinsics.fptosi_f64_i16 x
  def bool (x: bool) : t = intrinsics.btoi_bool_i16 x
  def to_i64 (x: t) : i64 = intrinsics.sext_i16_i64 x

  -- Arithmetic; wraps around on overflow.
  def (+) (x: t) (y: t) : t = intrinsics.add16 (x, y)
  def (-) (x: t) (y: t) : t = intrinsics.sub16 (x, y)
  def (*) (x: t) (y: t) : t = intrinsics.mul16 (x, y)
  def (/) (x: t) (y: t) : t = intrinsics.sdiv16 (x, y)
  def (%) (x: t) (y: t) : t = intrinsics.smod16 (x, y)
  def (//) (x: t) (y: t) : t = intrinsics.squot16 (x, y)
  def (%%) (x: t) (y: t) : t = intrinsics.srem16 (x, y)
  def (**) (x: t) (y: t) : t = intrinsics.pow16 (x, y)
  def neg (x: t) : t = 0 - x
  def abs (x: t) : t = intrinsics.abs16 x
  def sgn (x: t) : t = intrinsics.ssignum16 x
  def max (x: t) (y: t) : t = intrinsics.smax16 (x, y)
  def min (x: t) (y: t) : t = intrinsics.smin16 (x, y)

  -- Comparisons.
  def (==) (x: t) (y: t) : bool = intrinsics.eq_i16 (x, y)
  def (<) (x: t) (y: t) : bool = intrinsics.slt16 (x, y)
  def (<=) (x: t) (y: t) : bool = intrinsics.sle16 (x, y)
  def (>) (x: t) (y: t) : bool = y < x
  def (>=) (x: t) (y: t) : bool = y <= x
  def (!=) (x: t) (y: t) : bool = !(x == y)

  -- Bits.
  def (&) (x: t) (y: t) : t = intrinsics.and16 (x, y)
  def (|) (x: t) (y: t) : t = intrinsics.or16 (x, y)
  def (^) (x: t) (y: t) : t = intrinsics.xor16 (x, y)
  def not (x: t) : t = intrinsics.complement16 x
  def (<<) (x: t) (y: t) : t = intrinsics.shl16 (x, y)
  def (>>) (x: t) (y: t) : t = intrinsics.ashr16 (x, y)
  def (>>>) (x: t) (y: t) : t = intrinsics.lshr16 (x, y)
  def num_bits : i32 = 16
  def get_bit (bit: i32) (x: t) : i32 = if ((x >>> i32 bit) & 1) == 0 then 0 else 1
  def set_bit (bit: i32) (x: t) (b: i32) : t = (x & not (1 << i32 bit)) | (i32 b << i32 bit)
  def popc (x: t) : i32 = intrinsics.popc16 x
  def clz (x: t) : i32 = intrinsics.clz16 x
  def ctz (x: t) : i32 = intrinsics.ctz16 x
  def mul_hi (x: t) (y: t) : t = intrinsics.smul_hi16 (x, y)
  def mad_hi (a: t) (b: t) (c: t) : t = intrinsics.smad_hi16 (a, b, c)

  -- Bounds and reductions.
  def highest : t = 32767
  def lowest : t = -32768i16
  def sum [n] (xs: [n]t) : t = reduce (+) 0 xs
  def product [n] (xs: [n]t) : t = reduce (*) 1 xs
  def maximum [n] (xs: [n]t) : t = reduce max lowest xs
  def minimum [n] (xs: [n]t) : t = reduce min highest xs
}

-- | Signed 32-bit integers, from -2147483648 to 2147483647.
module i32: (integral with t = i32) = {
  type t = i32

  -- Conversions.
  def i8 (x: i8) : t = intrinsics.sext_i8_i32 x
  def i16 (x: i16) : t = intrinsics.sext_i16_i32 x
  def i32 (x: i32) : t = x
  def i64 (x: i64) : t = intrinsics.sext_i64_i32 x
  def u8 (x: u8) : t = intrinsics.zext_i8_i32 (intrinsics.sign_i8 x)
  def u16 (x: u16) : t = intrinsics.zext_i16_i32 (intrinsics.sign_i16 x)
  def u32 (x: u32) : t = intrinsics.sign_i32 x
  def u64 (x: u64) : t = intrinsics.zext_i64_i32 (intrinsics.sign_i64 x)
  def f16 (x: f16) : t = intrinsics.fptosi_f16_i32 x
  def f32 (x: f32) : t = intrinsics.fptosi_f32_i32 x
  def f64 (x: f64) : t = intrinsics.fptosi_f64_i32 x
  def bool (x: bool) : t = intrinsics.btoi_bool_i32 x
  def to_i64 (x: t) : i64 = intrinsics.sext_i32_i64 x

  -- Arithmetic; wraps around on overflow.
  def (+) (x: t) (y: t) : t = intrinsics.add32 (x, y)
  def (-) (x: t) (y: t) : t = intrinsics.sub32 (x, y)
  def (*) (x: t) (y: t) : t = intrinsics.mul32 (x, y)
  def (/) (x: t) (y: t) : t = intrinsics.sdiv32 (x, y)
  def (%) (x: t) (y: t) : t = intrinsics.smod32 (x, y)
  def (//) (x: t) (y: t) : t = intrinsics.squot32 (x, y)
  def (%%) (x: t) (y: t) : t = intrinsics.srem32 (x, y)
  def (**) (x: t) (y: t) : t = intrinsics.pow32 (x, y)
  def neg (x: t) : t = 0 - x
  def abs (x: t) : t = intrinsics.abs32 x
  def sgn (x: t) : t = intrinsics.ssignum32 x
  def max (x: t) (y: t) : t = intrinsics.smax32 (x, y)
  def min (x: t) (y: t) : t = intrinsics.smin32 (x, y)

  -- Comparisons.
  def (==) (x: t) (y: t) : bool = intrinsics.eq_i32 (x, y)
  def (<) (x: t) (y: t) : bool = intrinsics.slt32 (x, y)
  def (<=) (x: t) (y: t) : bool = intrinsics.sle32 (x, y)
  def (>) (x: t) (y: t) : bool = y < x
  def (>=) (x: t) (y: t) : bool = y <= x
  def (!=) (x: t) (y: t) : bool = !(x == y)

  -- Bits.
  def (&) (x: t) (y: t) : t = intrinsics.and32 (x, y)
  def (|) (x: t) (y: t) : t = intrinsics.or32 (x, y)
  def (^) (x: t) (y: t) : t = intrinsics.xor32 (x, y)
  def not (x: t) : t = intrinsics.complement32 x
  def (<<) (x: t) (y: t) : t = intrinsics.shl32 (x, y)
  def (>>) (x: t) (y: t) : t = intrinsics.ashr32 (x, y)
  def (>>>) (x: t) (y: t) : t = intrinsics.lshr32 (x, y)
  def num_bits : i32 = 32
  def get_bit (bit: i32) (x: t) : i32 = if ((x >>> i32 bit) & 1) == 0 then 0 else 1
  def set_bit (bit: i32) (x: t) (b: i32) : t = (x & not (1 << i32 bit)) | (i32 b << i32 bit)
  def popc (x: t) : i32 = intrinsics.popc32 x
  def clz (x: t) : i32 = intrinsics.clz32 x
  def ctz (x: t) : i32 = intrinsics.ctz32 x
  def mul_hi (x: t) (y: t) : t = intrinsics.smul_hi32 (x, y)
  def mad_hi (a: t) (b: t) (c: t) : t = intrinsics.smad_hi32 (a, b, c)

  -- Bounds and reductions.
  def highest : t = 2147483647
  def lowest : t = -2147483648i32
  def sum [n] (xs: [n]t) : t = reduce (+) 0 xs
  def product [n] (xs: [n]t) : t = reduce (*) 1 xs
  def maximum [n] (xs: [n]t) : t = reduce max lowest xs
  def minimum [n] (xs: [n]t) : t = reduce min highest xs
}

-- | Signed 64-bit integers, from -9223372036854775808 to 9223372036854775807.
module i64: (integral with t = i64) = {
  type t = i64

  -- Conversions.
  def i8 (x: i8) : t = intrinsics.sext_i8_i64 x
  def i16 (x: i16) : t = intrinsics.sext_i16_i64 x
  def i32 (x: i32) : t = intrinsics.sext_i32_i64 x
  def i64 (x: i64) : t = x
  def u8 (x: u8) : t = intrinsics.zext_i8_i64 (intrinsics.sign_i8 x)
  def u16 (x: u16) : t = intrinsics.zext_i16_i64 (intrinsics.sign_i16 x)
  def u32 (x: u32) : t = intrinsics.zext_i32_i64 (intrinsics.sign_i32 x)
  def u64 (x: u64) : t = intrinsics.sign_i64 x
  def f16 (x: f16) : t = intrinsics.fptosi_f16_i64 x
  def f32 (x: f32) : t = intrinsics.fptosi_f32_i64 x
  def f64 (x: f64) : t = intrinsics.fptosi_f64_i64 x
  def bool (x: bool) : t = intrinsics.btoi_bool_i64 x
  def to_i64 (x: t) : i64 = x

  -- Arithmetic; wraps around on overflow.
  def (+) (x: t) (y: t) : t = intrinsics.add64 (x, y)
  def (-) (x: t) (y: t) : t = intrinsics.sub64 (x, y)
  def (*) (x: t) (y: t) : t = intrinsics.mul64 (x, y)
  def (/) (x: t) (y: t) : t = intrinsics.sdiv64 (x, y)
  def (%) (x: t) (y: t) : t = intrinsics.smod64 (x, y)
  def (//) (x: t) (y: t) : t = intrinsics.squot64 (x, y)
  def (%%) (x: t) (y: t) : t = intrinsics.srem64 (x, y)
  def (**) (x: t) (y: t) : t = intrinsics.pow64 (x, y)
  def neg (x: t) : t = 0 - x
  def abs (x: t) : t = intrinsics.abs64 x
  def sgn (x: t) : t = intrinsics.ssignum64 x
  def max (x: t) (y: t) : t = intrinsics.smax64 (x, y)
  def min (x: t) (y: t) : t = intrinsics.smin64 (x, y)

  -- Comparisons.
  def (==) (x: t) (y: t) : bool = intrinsics.eq_i64 (x, y)
  def (<) (x: t) (y: t) : bool = intrinsics.slt64 (x, y)
  def (<=) (x: t) (y: t) : bool = intrinsics.sle64 (x, y)
  def (>) (x: t) (y: t) : bool = y < x
  def (>=) (x: t) (y: t) : bool = y <= x
  def (!=) (x: t) (y: t) : bool = !(x == y)

  -- Bits.
  def (&) (x: t) (y: t) : t = intrinsics.and64 (x, y)
  def (|) (x: t) (y: t) : t = intrinsics.or64 (x, y)
  def (^) (x: t) (y: t) : t = intrinsics.xor64 (x, y)
  def not (x: t) : t = intrinsics.complement64 x
  def (<<) (x: t) (y: t) : t = intrinsics.shl64 (x, y)
  def (>>) (x: t) (y: t) : t = intrinsics.ashr64 (x, y)
  def (>>>) (x: t) (y: t) : t = intrinsics.lshr64 (x, y)
  def num_bits : i32 = 64
  def get_bit (bit: i32) (x: t) : i32 = if ((x >>> i32 bit) & 1) == 0 then 0 else 1
  def set_bit (bit: i32) (x: t) (b: i32) : t = (x & not (1 << i32 bit)) | (i32 b << i32 bit)
  def popc (x: t) : i32 = intrinsics.popc64 x
  def clz (x: t) : i32 = intrinsics.clz64 x
  def ctz (x: t) : i32 = intrinsics.ctz64 x
  def mul_hi (x: t) (y: t) : t = intrinsics.smul_hi64 (x, y)
  def mad_hi (a: t) (b: t) (c: t) : t = intrinsics.smad_hi64 (a, b, c)

  -- Bounds and reductions.
  def highest : t = 9223372036854775807
  def lowest : t = -9223372036854775808i64
  def sum [n] (xs: [n]t) : t = reduce (+) 0 xs
  def product [n] (xs: [n]t) : t = reduce (*) 1 xs
  def maximum [n] (xs: [n]t) : t = reduce max lowest xs
  def minimum [n] (xs: [n]t) : t = reduce min highest xs
}

-- | Unsigned 8-bit integers, from 0 to 255. Beware that `u8.>>`
-- shifts arithmetically (copying the top bit), unlike the built-in
-- `>>` on unsigned values; `>>>` is the logical shift.
module u8: (integral with t = u8) = {
  type t = u8

  -- The primitive operations work on the same bits typed as `i8`.
  local def signed (x: t) : i8 = intrinsics.sign_i8 x
  local def unsigned (x: i8) : t = intrinsics.unsign_i8 x

  -- Conversions.
  def i8 (x: i8) : t = unsigned x
  def i16 (x: i16) : t = unsigned (intrinsics.zext_i16_i8 x)
  def i32 (x: i32) : t = unsigned (intrinsics.zext_i32_i8 x)
  def i64 (x: i64) : t = unsigned (intrinsics.zext_i64_i8 x)
  def u8 (x: u8) : t = x
  def u16 (x: u16) : t = unsigned (intrinsics.zext_i16_i8 (intrinsics.sign_i16 x))
  def u32 (x: u32) : t = unsigned (intrinsics.zext_i32_i8 (intrinsics.sign_i32 x))
  def u64 (x: u64) : t = unsigned (intrinsics.zext_i64_i8 (intrinsics.sign_i64 x))
  def f16 (x: f16) : t = unsigned (intrinsics.fptoui_f16_i8 x)
  def f32 (x: f32) : t = unsigned (intrinsics.fptoui_f32_i8 x)
  def f64 (x: f64) : t = unsigned (intrinsics.fptoui_f64_i8 x)
  def bool (x: bool) : t = unsigned (intrinsics.btoi_bool_i8 x)
  def to_i64 (x: t) : i64 = intrinsics.zext_i8_i64 (signed x)

  -- Arithmetic; wraps around on overflow.
  def (+) (x: t) (y: t) : t = unsigned (intrinsics.add8 (signed x, signed y))
  def (-) (x: t) (y: t) : t = unsigned (intrinsics.sub8 (signed x, signed y))
  def (*) (x: t) (y: t) : t = unsigned (intrinsics.mul8 (signed x, signed y))
  def (/) (x: t) (y: t) : t = unsigned (intrinsics.udiv8 (signed x, signed y))
  def (%) (x: t) (y: t) : t = unsigned (intrinsics.umod8 (signed x, signed y))
  def (//) (x: t) (y: t) : t = unsigned (intrinsics.udiv8 (signed x, signed y))
  def (%%) (x: t) (y: t) : t = unsigned (intrinsics.umod8 (signed x, signed y))
  def (**) (x: t) (y: t) : t = unsigned (intrinsics.pow8 (signed x, signed y))
  def neg (x: t) : t = 0 - x
  def abs (x: t) : t = x
  def sgn (x: t) : t = unsigned (intrinsics.usignum8 (signed x))
  def max (x: t) (y: t) : t = unsigned (intrinsics.umax8 (signed x, signed y))
  def min (x: t) (y: t) : t = unsigned (intrinsics.umin8 (signed x, signed y))

  -- Comparisons.
  def (==) (x: t) (y: t) : bool = intrinsics.eq_i8 (signed x, signed y)
  def (<) (x: t) (y: t) : bool = intrinsics.ult8 (signed x, signed y)
  def (<=) (x: t) (y: t) : bool = intrinsics.ule8 (signed x, signed y)
  def (>) (x: t) (y: t) : bool = y < x
  def (>=) (x: t) (y: t) : bool = y <= x
  def (!=) (x: t) (y: t) : bool = !(x == y)

  -- Bits; `>>` is an arithmetic shift here too.
  def (&) (x: t) (y: t) : t = unsigned (intrinsics.and8 (signed x, signed y))
  def (|) (x: t) (y: t) : t = unsigned (intrinsics.or8 (signed x, signed y))
  def (^) (x: t) (y: t) : t = unsigned (intrinsics.xor8 (signed x, signed y))
  def not (x: t) : t = unsigned (intrinsics.complement8 (signed x))
  def (<<) (x: t) (y: t) : t = unsigned (intrinsics.shl8 (signed x, signed y))
  def (>>) (x: t) (y: t) : t = unsigned (intrinsics.ashr8 (signed x, signed y))
  def (>>>) (x: t) (y: t) : t = unsigned (intrinsics.lshr8 (signed x, signed y))
  def num_bits : i32 = 8
  def get_bit (bit: i32) (x: t) : i32 = if ((x >>> i32 bit) & 1) == 0 then 0 else 1
  def set_bit (bit: i32) (x: t) (b: i32) : t = (x & not (1 << i32 bit)) | (i32 b << i32 bit)
  def popc (x: t) : i32 = intrinsics.popc8 (signed x)
  def clz (x: t) : i32 = intrinsics.clz8 (signed x)
  def ctz (x: t) : i32 = intrinsics.ctz8 (signed x)
  def mul_hi (x: t) (y: t) : t = unsigned (intrinsics.umul_hi8 (signed x, signed y))
  def mad_hi (a: t) (b: t) (c: t) : t = unsigned (intrinsics.umad_hi8 (signed a, signed b, signed c))

  -- Bounds and reductions.
  def highest : t = 255
  def lowest : t = 0
  def sum [n] (xs: [n]t) : t = reduce (+) 0 xs
  def product [n] (xs: [n]t) : t = reduce (*) 1 xs
  def maximum [n] (xs: [n]t) : t = reduce max lowest xs
  def minimum [n] (xs: [n]t) : t = reduce min highest xs
}

-- | Unsigned 16-bit integers, from 0 to 65535. Beware that `u16.>>`
-- shifts arithmetically (copying the top bit), unlike the built-in
-- `>>` on unsigned values; `>>>` is the logical shift.
module u16: (integral with t = u16) = {
  type t = u16

  -- The primitive operations work on the same bits typed as `i16`.
  local def signed (x: t) : i16 = intrinsics.sign_i16 x
  local def unsigned (x: i16) : t = intrinsics.unsign_i16 x

  -- Conversions.
  def i8 (x: i8) : t = unsigned (intrinsics.zext_i8_i16 x)
  def i16 (x: i16) : t = unsigned x
  def i32 (x: i32) : t = unsigned (intrinsics.zext_i32_i16 x)
  def i64 (x: i64) : t = unsigned (intrinsics.zext_i64_i16 x)
  def u8 (x: u8) : t = unsigned (intrinsics.zext_i8_i16 (intrinsics.sign_i8 x))
  def u16 (x: u16) : t = x
  def u32 (x: u32) : t = unsigned (intrinsics.zext_i32_i16 (intrinsics.sign_i32 x))
  def u64 (x: u64) : t = unsigned (intrinsics.zext_i64_i16 (intrinsics.sign_i64 x))
  def f16 (x: f16) : t = unsigned (intrinsics.fptoui_f16_i16 x)
  def f32 (x: f32) : t = unsigned (intrinsics.fptoui_f32_i16 x)
  def f64 (x: f64) : t = unsigned (intrinsics.fptoui_f64_i16 x)
  def bool (x: bool) : t = unsigned (intrinsics.btoi_bool_i16 x)
  def to_i64 (x: t) : i64 = intrinsics.zext_i16_i64 (signed x)

  -- Arithmetic; wraps around on overflow.
  def (+) (x: t) (y: t) : t = unsigned (intrinsics.add16 (signed x, signed y))
  def (-) (x: t) (y: t) : t = unsigned (intrinsics.sub16 (signed x, signed y))
  def (*) (x: t) (y: t) : t = unsigned (intrinsics.mul16 (signed x, signed y))
  def (/) (x: t) (y: t) : t = unsigned (intrinsics.udiv16 (signed x, signed y))
  def (%) (x: t) (y: t) : t = unsigned (intrinsics.umod16 (signed x, signed y))
  def (//) (x: t) (y: t) : t = unsigned (intrinsics.udiv16 (signed x, signed y))
  def (%%) (x: t) (y: t) : t = unsigned (intrinsics.umod16 (signed x, signed y))
  def (**) (x: t) (y: t) : t = unsigned (intrinsics.pow16 (signed x, signed y))
  def neg (x: t) : t = 0 - x
  def abs (x: t) : t = x
  def sgn (x: t) : t = unsigned (intrinsics.usignum16 (signed x))
  def max (x: t) (y: t) : t = unsigned (intrinsics.umax16 (signed x, signed y))
  def min (x: t) (y: t) : t = unsigned (intrinsics.umin16 (signed x, signed y))

  -- Comparisons.
  def (==) (x: t) (y: t) : bool = intrinsics.eq_i16 (signed x, signed y)
  def (<) (x: t) (y: t) : bool = intrinsics.ult16 (signed x, signed y)
  def (<=) (x: t) (y: t) : bool = intrinsics.ule16 (signed x, signed y)
  def (>) (x: t) (y: t) : bool = y < x
  def (>=) (x: t) (y: t) : bool = y <= x
  def (!=) (x: t) (y: t) : bool = !(x == y)

  -- Bits; `>>` is an arithmetic shift here too.
  def (&) (x: t) (y: t) : t = unsigned (intrinsics.and16 (signed x, signed y))
  def (|) (x: t) (y: t) : t = unsigned (intrinsics.or16 (signed x, signed y))
  def (^) (x: t) (y: t) : t = unsigned (intrinsics.xor16 (signed x, signed y))
  def not (x: t) : t = unsigned (intrinsics.complement16 (signed x))
  def (<<) (x: t) (y: t) : t = unsigned (intrinsics.shl16 (signed x, signed y))
  def (>>) (x: t) (y: t) : t = unsigned (intrinsics.ashr16 (signed x, signed y))
  def (>>>) (x: t) (y: t) : t = unsigned (intrinsics.lshr16 (signed x, signed y))
  def num_bits : i32 = 16
  def get_bit (bit: i32) (x: t) : i32 = if ((x >>> i32 bit) & 1) == 0 then 0 else 1
  def set_bit (bit: i32) (x: t) (b: i32) : t = (x & not (1 << i32 bit)) | (i32 b << i32 bit)
  def popc (x: t) : i32 = intrinsics.popc16 (signed x)
  def clz (x: t) : i32 = intrinsics.clz16 (signed x)
  def ctz (x: t) : i32 = intrinsics.ctz16 (signed x)
  def mul_hi (x: t) (y: t) : t = unsigned (intrinsics.umul_hi16 (signed x, signed y))
  def mad_hi (a: t) (b: t) (c: t) : t = unsigned (intrinsics.umad_hi16 (signed a, signed b, signed c))

  -- Bounds and reductions.
  def highest : t = 65535
  def lowest : t = 0
  def sum [n] (xs: [n]t) : t = reduce (+) 0 xs
  def product [n] (xs: [n]t) : t = reduce (*) 1 xs
  def maximum [n] (xs: [n]t) : t = reduce max lowest xs
  def minimum [n] (xs: [n]t) : t = reduce min highest xs
}

-- | Unsigned 32-bit integers, from 0 to 4294967295. Beware that `u32.>>`
-- shifts arithmetically (copying the top bit), unlike the built-in
-- `>>` on unsigned values; `>>>` is the logical shift.
module u32: (integral with t = u32) = {
  type t = u32

  -- The primitive operations work on the same bits typed as `i32`.
  local def signed (x: t) : i32 = intrinsics.sign_i32 x
  local def unsigned (x: i32) : t = intrinsics.unsign_i32 x

  -- Conversions.
  def i8 (x: i8) : t = unsigned (intrinsics.zext_i8_i32 x)
  def i16 (x: i16) : t = unsigned (intrinsics.zext_i16_i32 x)
  def i32 (x: i32) : t = unsigned x
  def i64 (x: i64) : t = unsigned (intrinsics.zext_i64_i32 x)
  def u8 (x: u8) : t = unsigned (intrinsics.zext_i8_i32 (intrinsics.sign_i8 x))
  def u16 (x: u16) : t = unsigned (intrinsics.zext_i16_i32 (intrinsics.sign_i16 x))
  def u32 (x: u32) : t = x
  def u64 (x: u64) : t = unsigned (intrinsics.zext_i64_i32 (intrinsics.sign_i64 x))
  def f16 (x: f16) : t = unsigned (intrinsics.fptoui_f16_i32 x)
  def f32 (x: f32) : t = unsigned (intrinsics.fptoui_f32_i32 x)
  def f64 (x: f64) : t = unsigned (intrinsics.fptoui_f64_i32 x)
  def bool (x: bool) : t = unsigned (intrinsics.btoi_bool_i32 x)
  def to_i64 (x: t) : i64 = intrinsics.zext_i32_i64 (signed x)

  -- Arithmetic; wraps around on overflow.
  def (+) (x: t) (y: t) : t = unsigned (intrinsics.add32 (signed x, signed y))
  def (-) (x: t) (y: t) : t = unsigned (intrinsics.sub32 (signed x, signed y))
  def (*) (x: t) (y: t) : t = unsigned (intrinsics.mul32 (signed x, signed y))
  def (/) (x: t) (y: t) : t = unsigned (intrinsics.udiv32 (signed x, signed y))
  def (%) (x: t) (y: t) : t = unsigned (intrinsics.umod32 (signed x, signed y))
  def (//) (x: t) (y: t) : t = unsigned (intrinsics.udiv32 (signed x, signed y))
  def (%%) (x: t) (y: t) : t = unsigned (intrinsics.umod32 (signed x, signed y))
  def (**) (x: t) (y: t) : t = unsigned (intrinsics.pow32 (signed x, signed y))
  def neg (x: t) : t = 0 - x
  def abs (x: t) : t = x
  def sgn (x: t) : t = unsigned (intrinsics.usignum32 (signed x))
  def max (x: t) (y: t) : t = unsigned (intrinsics.umax32 (signed x, signed y))
  def min (x: t) (y: t) : t = unsigned (intrinsics.umin32 (signed x, signed y))

  -- Comparisons.
  def (==) (x: t) (y: t) : bool = intrinsics.eq_i32 (signed x, signed y)
  def (<) (x: t) (y: t) : bool = intrinsics.ult32 (signed x, signed y)
  def (<=) (x: t) (y: t) : bool = intrinsics.ule32 (signed x, signed y)
  def (>) (x: t) (y: t) : bool = y < x
  def (>=) (x: t) (y: t) : bool = y <= x
  def (!=) (x: t) (y: t) : bool = !(x == y)

  -- Bits; `>>` is an arithmetic shift here too.
  def (&) (x: t) (y: t) : t = unsigned (intrinsics.and32 (signed x, signed y))
  def (|) (x: t) (y: t) : t = unsigned (intrinsics.or32 (signed x, signed y))
  def (^) (x: t) (y: t) : t = unsigned (intrinsics.xor32 (signed x, signed y))
  def not (x: t) : t = unsigned (intrinsics.complement32 (signed x))
  def (<<) (x: t) (y: t) : t = unsigned (intrinsics.shl32 (signed x, signed y))
  def (>>) (x: t) (y: t) : t = unsigned (intrinsics.ashr32 (signed x, signed y))
  def (>>>) (x: t) (y: t) : t = unsigned (intrinsics.lshr32 (signed x, signed y))
  def num_bits : i32 = 32
  def get_bit (bit: i32) (x: t) : i32 = if ((x >>> i32 bit) & 1) == 0 then 0 else 1
  def set_bit (bit: i32) (x: t) (b: i32) : t = (x & not (1 << i32 bit)) | (i32 b << i32 bit)
  def popc (x: t) : i32 = intrinsics.popc32 (signed x)
  def clz (x: t) : i32 = intrinsics.clz32 (signed x)
  def ctz (x: t) : i32 = intrinsics.ctz32 (signed x)
  def mul_hi (x: t) (y: t) : t = unsigned (intrinsics.umul_hi32 (signed x, signed y))
  def mad_hi (a: t) (b: t) (c: t) : t = unsigned (intrinsics.umad_hi32 (signed a, signed b, signed c))

  -- Bounds and reductions.
  def highest : t = 4294967295
  def lowest : t = 0
  def sum [n] (xs: [n]t) : t = reduce (+) 0 xs
  def product [n] (xs: [n]t) : t = reduce (*) 1 xs
  def maximum [n] (xs: [n]t) : t = reduce max lowest xs
  def minimum [n] (xs: [n]t) : t = reduce min highest xs
}

-- | Unsigned 64-bit integers, from 0 to 18446744073709551615. Beware that `u64.>>`
-- shifts arithmetically (copying the top bit), unlike the built-in
-- `>>` on unsigned values; `>>>` is the logical shift.
module u64: (integral with t = u64) = {
  type t = u64

  -- The primitive operations work on the same bits typed as `i64`.
  local def signed (x: t) : i64 = intrinsics.sign_i64 x
  local def unsigned (x: i64) : t = intrinsics.unsign_i64 x

  -- Conversions.
  def i8 (x: i8) : t = unsigned (intrinsics.zext_i8_i64 x)
  def i16 (x: i16) : t = unsigned (intrinsics.zext_i16_i64 x)
  def i32 (x: i32) : t = unsigned (intrinsics.zext_i32_i64 x)
  def i64 (x: i64) : t = unsigned x
  def u8 (x: u8) : t = unsigned (intrinsics.zext_i8_i64 (intrinsics.sign_i8 x))
  def u16 (x: u16) : t = unsigned (intrinsics.zext_i16_i64 (intrinsics.sign_i16 x))
  def u32 (x: u32) : t = unsigned (intrinsics.zext_i32_i64 (intrinsics.sign_i32 x))
  def u64 (x: u64) : t = x
  def f16 (x: f16) : t = unsigned (intrinsics.fptoui_f16_i64 x)
  def f32 (x: f32) : t = unsigned (intrinsics.fptoui_f32_i64 x)
  def f64 (x: f64) : t = unsigned (intrinsics.fptoui_f64_i64 x)
  def bool (x: bool) : t = unsigned (intrinsics.btoi_bool_i64 x)
  def to_i64 (x: t) : i64 = signed x

  -- Arithmetic; wraps around on overflow.
  def (+) (x: t) (y: t) : t = unsigned (intrinsics.add64 (signed x, signed y))
  def (-) (x: t) (y: t) : t = unsigned (intrinsics.sub64 (signed x, signed y))
  def (*) (x: t) (y: t) : t = unsigned (intrinsics.mul64 (signed x, signed y))
  def (/) (x: t) (y: t) : t = unsigned (intrinsics.udiv64 (signed x, signed y))
  def (%) (x: t) (y: t) : t = unsigned (intrinsics.umod64 (signed x, signed y))
  def (//) (x: t) (y: t) : t = unsigned (intrinsics.udiv64 (signed x, signed y))
  def (%%) (x: t) (y: t) : t = unsigned (intrinsics.umod64 (signed x, signed y))
  def (**) (x: t) (y: t) : t = unsigned (intrinsics.pow64 (signed x, signed y))
  def neg (x: t) : t = 0 - x
  def abs (x: t) : t = x
  def sgn (x: t) : t = unsigned (intrinsics.usignum64 (signed x))
  def max (x: t) (y: t) : t = unsigned (intrinsics.umax64 (signed x, signed y))
  def min (x: t) (y: t) : t = unsigned (intrinsics.umin64 (signed x, signed y))

  -- Comparisons.
  def (==) (x: t) (y: t) : bool = intrinsics.eq_i64 (signed x, signed y)
  def (<) (x: t) (y: t) : bool = intrinsics.ult64 (signed x, signed y)
  def (<=) (x: t) (y: t) : bool = intrinsics.ule64 (signed x, signed y)
  def (>) (x: t) (y: t) : bool = y < x
  def (>=) (x: t) (y: t) : bool = y <= x
  def (!=) (x: t) (y: t) : bool = !(x == y)

  -- Bits; `>>` is an arithmetic shift here too.
  def (&) (x: t) (y: t) : t = unsigned (intrinsics.and64 (signed x, signed y))
  def (|) (x: t) (y: t) : t = unsigned (intrinsics.or64 (signed x, signed y))
  def (^) (x: t) (y: t) : t = unsigned (intrinsics.xor64 (signed x, signed y))
  def not (x: t) : t = unsigned (intrinsics.complement64 (signed x))
  def (<<) (x: t) (y: t) : t = unsigned (intrinsics.shl64 (signed x, signed y))
  def (>>) (x: t) (y: t) : t = unsigned (intrinsics.ashr64 (signed x, signed y))
  def (>>>) (x: t) (y: t) : t = unsigned (intrinsics.lshr64 (signed x, signed y))
  def num_bits : i32 = 64
  def get_bit (bit: i32) (x: t) : i32 = if ((x >>> i32 bit) & 1) == 0 then 0 else 1
  def set_bit (bit: i32) (x: t) (b: i32) : t = (x & not (1 << i32 bit)) | (i32 b << i32 bit)
  def popc (x: t) : i32 = intrinsics.popc64 (signed x)
  def clz (x: t) : i32 = intrinsics.clz64 (signed x)
  def ctz (x: t) : i32 = intrinsics.ctz64 (signed x)
  def mul_hi (x: t) (y: t) : t = unsigned (intrinsics.umul_hi64 (signed x, signed y))
  def mad_hi (a: t) (b: t) (c: t) : t = unsigned (intrinsics.umad_hi64 (signed a, signed b, signed c))

  -- Bounds and reductions.
  def highest : t = 18446744073709551615
  def lowest : t = 0
  def sum [n] (xs: [n]t) : t = reduce (+) 0 xs
  def product [n] (xs: [n]t) : t = reduce (*) 1 xs
  def maximum [n] (xs: [n]t) : t = reduce max lowest xs
  def minimum [n] (xs: [n]t) : t = reduce min highest xs
}

-- | Double-precision (64-bit) IEEE 754 floats.
module f64: (float with t = f64 with int_t = u64) = {
  type t = f64
  type int_t = u64

  -- Bound here, before the conversion function `u64` hides the module.
  local module bits = u64

  -- Conversions.
  def i8 (x: i8) : t = intrinsics.sitofp_i8_f64 x
  def i16 (x: i16) : t = intrinsics.sitofp_i16_f64 x
  def i32 (x: i32) : t = intrinsics.sitofp_i32_f64 x
  def i64 (x: i64) : t = intrinsics.sitofp_i64_f64 x
  def u8 (x: u8) : t = intrinsics.uitofp_i8_f64 (intrinsics.sign_i8 x)
  def u16 (x: u16) : t = intrinsics.uitofp_i16_f64 (intrinsics.sign_i16 x)
  def u32 (x: u32) : t = intrinsics.uitofp_i32_f64 (intrinsics.sign_i32 x)
  def u64 (x: u64) : t = intrinsics.uitofp_i64_f64 (intrinsics.sign_i64 x)
  def f16 (x: f16) : t = intrinsics.fpconv_f16_f64 x
  def f32 (x: f32) : t = intrinsics.fpconv_f32_f64 x
  def f64 (x: f64) : t = x
  def bool (x: bool) : t = intrinsics.btof_bool_f64 x
  def to_i64 (x: t) : i64 = intrinsics.fptosi_f64_i64 x
  def to_f64 (x: t) : f64 = x

  -- Arithmetic.
  def (+) (x: t) (y: t) : t = intrinsics.fadd64 (x, y)
  def (-) (x: t) (y: t) : t = intrinsics.fsub64 (x, y)
  def (*) (x: t) (y: t) : t = intrinsics.fmul64 (x, y)
  def (/) (x: t) (y: t) : t = intrinsics.fdiv64 (x, y)
  def (%) (x: t) (y: t) : t = intrinsics.fmod64 (x, y)
  def (**) (x: t) (y: t) : t = intrinsics.fpow64 (x, y)
  def neg (x: t) : t = intrinsics.neg_f64 x
  def abs (x: t) : t = intrinsics.fabs64 x
  def sgn (x: t) : t = intrinsics.fsignum64 x
  def max (x: t) (y: t) : t = intrinsics.fmax64 (x, y)
  def min (x: t) (y: t) : t = intrinsics.fmin64 (x, y)
  def recip (x: t) : t = 1 / x
  def from_fraction (x: i64) (y: i64) : t = i64 x / i64 y
  def mad (a: t) (b: t) (c: t) : t = intrinsics.mad64 (a, b, c)
  def fma (a: t) (b: t) (c: t) : t = intrinsics.fma64 (a, b, c)
  def lerp (a: t) (b: t) (w: t) : t = intrinsics.lerp64 (a, b, w)

  -- Comparisons and classification.
  def (==) (x: t) (y: t) : bool = intrinsics.eq_f64 (x, y)
  def (<) (x: t) (y: t) : bool = intrinsics.lt64 (x, y)
  def (<=) (x: t) (y: t) : bool = intrinsics.le64 (x, y)
  def (>) (x: t) (y: t) : bool = y < x
  def (>=) (x: t) (y: t) : bool = y <= x
  def (!=) (x: t) (y: t) : bool = !(x == y)
  def isinf (x: t) : bool = intrinsics.isinf64 x
  def isnan (x: t) : bool = intrinsics.isnan64 x

  -- Constants.
  def inf : t = 1 / 0
  def nan : t = 0 / 0
  def highest : t = inf
  def lowest : t = neg inf
  def pi : t = 3.141592653589793
  def e : t = 2.718281828459045
  def num_bits : i32 = 64
  def epsilon : t = 2.220446049250313e-16

  -- Reductions.
  def sum [n] (xs: [n]t) : t = reduce (+) 0 xs
  def product [n] (xs: [n]t) : t = reduce (*) 1 xs
  def maximum [n] (xs: [n]t) : t = reduce max lowest xs
  def minimum [n] (xs: [n]t) : t = reduce min highest xs

  -- Powers, roots and logarithms.
  def sqrt (x: t) : t = intrinsics.sqrt64 x
  def rsqrt (x: t) : t = intrinsics.rsqrt64 x
  def cbrt (x: t) : t = intrinsics.cbrt64 x
  def exp (x: t) : t = intrinsics.exp64 x
  def log (x: t) : t = intrinsics.log64 x
  def log2 (x: t) : t = intrinsics.log2_64 x
  def log10 (x: t) : t = intrinsics.log10_64 x
  def log1p (x: t) : t = intrinsics.log1p_64 x
  def hypot (x: t) (y: t) : t = intrinsics.hypot64 (x, y)

  -- Trigonometry.
  def sin (x: t) : t = intrinsics.sin64 x
  def cos (x: t) : t = intrinsics.cos64 x
  def tan (x: t) : t = intrinsics.tan64 x
  def sinpi (x: t) : t = intrinsics.sinpi64 x
  def cospi (x: t) : t = intrinsics.cospi64 x
  def tanpi (x: t) : t = intrinsics.tanpi64 x
  def asin (x: t) : t = intrinsics.asin64 x
  def acos (x: t) : t = intrinsics.acos64 x
  def atan (x: t) : t = intrinsics.atan64 x
  def asinpi (x: t) : t = intrinsics.asinpi64 x
  def acospi (x: t) : t = intrinsics.acospi64 x
  def atanpi (x: t) : t = intrinsics.atanpi64 x
  def sinh (x: t) : t = intrinsics.sinh64 x
  def cosh (x: t) : t = intrinsics.cosh64 x
  def tanh (x: t) : t = intrinsics.tanh64 x
  def asinh (x: t) : t = intrinsics.asinh64 x
  def acosh (x: t) : t = intrinsics.acosh64 x
  def atanh (x: t) : t = intrinsics.atanh64 x
  def atan2 (y: t) (x: t) : t = intrinsics.atan2_64 (y, x)
  def atan2pi (y: t) (x: t) : t = intrinsics.atan2pi_64 (y, x)

  -- Special functions and rounding.
  def gamma (x: t) : t = intrinsics.gamma64 x
  def lgamma (x: t) : t = intrinsics.lgamma64 x
  def erf (x: t) : t = intrinsics.erf64 x
  def erfc (x: t) : t = intrinsics.erfc64 x
  def ceil (x: t) : t = intrinsics.ceil64 x
  def floor (x: t) : t = intrinsics.floor64 x
  def round (x: t) : t = intrinsics.round64 x
  -- | Truncates through `i64`, so only values that fit there come out right.
  def trunc (x: t) : t = i64 (intrinsics.fptosi_f64_i64 x)

  -- The bit representation.
  def from_bits (x: int_t) : t = intrinsics.bitstofp_i64_f64 (intrinsics.sign_i64 x)
  def to_bits (x: t) : int_t = intrinsics.unsign_i64 (intrinsics.fptobits_f64_i64 x)
  def get_bit (bit: i32) (x: t) : i32 = bits.get_bit bit (to_bits x)
  def set_bit (bit: i32) (x: t) (b: i32) : t = from_bits (bits.set_bit bit (to_bits x) b)
  def nextafter (x: t) (y: t) : t = intrinsics.nextafter64 (x, y)
  def ldexp (x: t) (k: i32) : t = intrinsics.ldexp64 (x, k)
  def copysign (x: t) (y: t) : t = intrinsics.copysign64 (x, y)
}

-- | Single-precision (32-bit) IEEE 754 floats.
module f32: (float with t = f32 with int_t = u32) = {
  type t = f32
  type int_t = u32

  -- Bound here, before the conversion function `u32` hides the module.
  local module bits = u32

  -- Conversions.
  def i8 (x: i8) : t = intrinsics.sitofp_i8_f32 x
  def i16 (x: i16) : t = intrinsics.sitofp_i16_f32 x
  def i32 (x: i32) : t = intrinsics.sitofp_i32_f32 x
  def i64 (x: i64) : t = intrinsics.sitofp_i64_f32 x
  def u8 (x: u8) : t = intrinsics.uitofp_i8_f32 (intrinsics.sign_i8 x)
  def u16 (x: u16) : t = intrinsics.uitofp_i16_f32 (intrinsics.sign_i16 x)
  def u32 (x: u32) : t = intrinsics.uitofp_i32_f32 (intrinsics.sign_i32 x)
  def u64 (x: u64) : t = intrinsics.uitofp_i64_f32 (intrinsics.sign_i64 x)
  def f16 (x: f16) : t = intrinsics.fpconv_f16_f32 x
  def f32 (x: f32) : t = x
  def f64 (x: f64) : t = intrinsics.fpconv_f64_f32 x
  def bool (x: bool) : t = intrinsics.btof_bool_f32 x
  def to_i64 (x: t) : i64 = intrinsics.fptosi_f32_i64 x
  def to_f64 (x: t) : f64 = intrinsics.fpconv_f32_f64 x

  -- Arithmetic.
  def (+) (x: t) (y: t) : t = intrinsics.fadd32 (x, y)
  def (-) (x: t) (y: t) : t = intrinsics.fsub32 (x, y)
  def (*) (x: t) (y: t) : t = intrinsics.fmul32 (x, y)
  def (/) (x: t) (y: t) : t = intrinsics.fdiv32 (x, y)
  def (%) (x: t) (y: t) : t = intrinsics.fmod32 (x, y)
  def (**) (x: t) (y: t) : t = intrinsics.fpow32 (x, y)
  def neg (x: t) : t = intrinsics.neg_f32 x
  def abs (x: t) : t = intrinsics.fabs32 x
  def sgn (x: t) : t = intrinsics.fsignum32 x
  def max (x: t) (y: t) : t = intrinsics.fmax32 (x, y)
  def min (x: t) (y: t) : t = intrinsics.fmin32 (x, y)
  def recip (x: t) : t = 1 / x
  def from_fraction (x: i64) (y: i64) : t = i64 x / i64 y
  def mad (a: t) (b: t) (c: t) : t = intrinsics.mad32 (a, b, c)
  def fma (a: t) (b: t) (c: t) : t = intrinsics.fma32 (a, b, c)
  def lerp (a: t) (b: t) (w: t) : t = intrinsics.lerp32 (a, b, w)

  -- Comparisons and classification.
  def (==) (x: t) (y: t) : bool = intrinsics.eq_f32 (x, y)
  def (<) (x: t) (y: t) : bool = intrinsics.lt32 (x, y)
  def (<=) (x: t) (y: t) : bool = intrinsics.le32 (x, y)
  def (>) (x: t) (y: t) : bool = y < x
  def (>=) (x: t) (y: t) : bool = y <= x
  def (!=) (x: t) (y: t) : bool = !(x == y)
  def isinf (x: t) : bool = intrinsics.isinf32 x
  def isnan (x: t) : bool = intrinsics.isnan32 x

  -- Constants.
  def inf : t = 1 / 0
  def nan : t = 0 / 0
  def highest : t = inf
  def lowest : t = neg inf
  def pi : t = f64 3.141592653589793
  def e : t = f64 2.718281828459045
  def num_bits : i32 = 32
  def epsilon : t = 1.1920929e-7

  -- Reductions.
  def sum [n] (xs: [n]t) : t = reduce (+) 0 xs
  def product [n] (xs: [n]t) : t = reduce (*) 1 xs
  def maximum [n] (xs: [n]t) : t = reduce max lowest xs
  def minimum [n] (xs: [n]t) : t = reduce min highest xs

  -- Powers, roots and logarithms.
  def sqrt (x: t) : t = intrinsics.sqrt32 x
  def rsqrt (x: t) : t = intrinsics.rsqrt32 x
  def cbrt (x: t) : t = intrinsics.cbrt32 x
  def exp (x: t) : t = intrinsics.exp32 x
  def log (x: t) : t = intrinsics.log32 x
  def log2 (x: t) : t = intrinsics.log2_32 x
  def log10 (x: t) : t = intrinsics.log10_32 x
  def log1p (x: t) : t = intrinsics.log1p_32 x
  def hypot (x: t) (y: t) : t = intrinsics.hypot32 (x, y)

  -- Trigonometry.
  def sin (x: t) : t = intrinsics.sin32 x
  def cos (x: t) : t = intrinsics.cos32 x
  def tan (x: t) : t = intrinsics.tan32 x
  def sinpi (x: t) : t = intrinsics.sinpi32 x
  def cospi (x: t) : t = intrinsics.cospi32 x
  def tanpi (x: t) : t = intrinsics.tanpi32 x
  def asin (x: t) : t = intrinsics.asin32 x
  def acos (x: t) : t = intrinsics.acos32 x
  def atan (x: t) : t = intrinsics.atan32 x
  def asinpi (x: t) : t = intrinsics.asinpi32 x
  def acospi (x: t) : t = intrinsics.acospi32 x
  def atanpi (x: t) : t = intrinsics.atanpi32 x
  def sinh (x: t) : t = intrinsics.sinh32 x
  def cosh (x: t) : t = intrinsics.cosh32 x
  def tanh (x: t) : t = intrinsics.tanh32 x
  def asinh (x: t) : t = intrinsics.asinh32 x
  def acosh (x: t) : t = intrinsics.acosh32 x
  def atanh (x: t) : t = intrinsics.atanh32 x
  def atan2 (y: t) (x: t) : t = intrinsics.atan2_32 (y, x)
  def atan2pi (y: t) (x: t) : t = intrinsics.atan2pi_32 (y, x)

  -- Special functions and rounding.
  def gamma (x: t) : t = intrinsics.gamma32 x
  def lgamma (x: t) : t = intrinsics.lgamma32 x
  def erf (x: t) : t = intrinsics.erf32 x
  def erfc (x: t) : t = intrinsics.erfc32 x
  def ceil (x: t) : t = intrinsics.ceil32 x
  def floor (x: t) : t = intrinsics.floor32 x
  def round (x: t) : t = intrinsics.round32 x
  -- | Truncates through `i32`, so only values that fit there come out right.
  def trunc (x: t) : t = i32 (intrinsics.fptosi_f32_i32 x)

  -- The bit representation.
  def from_bits (x: int_t) : t = intrinsics.bitstofp_i32_f32 (intrinsics.sign_i32 x)
  def to_bits (x: t) : int_t = intrinsics.unsign_i32 (intrinsics.fptobits_f32_i32 x)
  def get_bit (bit: i32) (x: t) : i32 = bits.get_bit bit (to_bits x)
  def set_bit (bit: i32) (x: t) (b: i32) : t = from_bits (bits.set_bit bit (to_bits x) b)
  def nextafter (x: t) (y: t) : t = intrinsics.nextafter32 (x, y)
  def ldexp (x: t) (k: i32) : t = intrinsics.ldexp32 (x, k)
  def copysign (x: t) (y: t) : t = intrinsics.copysign32 (x, y)
}

-- | Half-precision (16-bit) IEEE 754 floats. Where the hardware has
-- no half-precision arithmetic, the operations are carried out in
-- `f32` and rounded back.
module f16: (float with t = f16 with int_t = u16) = {
  type t = f16
  type int_t = u16

  -- Bound here, before the conversion function `u16` hides the module.
  local module bits = u16

  -- Conversions.
  def i8 (x: i8) : t = intrinsics.sitofp_i8_f16 x
  def i16 (x: i16) : t = intrinsics.sitofp_i16_f16 x
  def i32 (x: i32) : t = intrinsics.sitofp_i32_f16 x
  def i64 (x: i64) : t = intrinsics.sitofp_i64_f16 x
  def u8 (x: u8) : t = intrinsics.uitofp_i8_f16 (intrinsics.sign_i8 x)
  def u16 (x: u16) : t = intrinsics.uitofp_i16_f16 (intrinsics.sign_i16 x)
  def u32 (x: u32) : t = intrinsics.uitofp_i32_f16 (intrinsics.sign_i32 x)
  def u64 (x: u64) : t = intrinsics.uitofp_i64_f16 (intrinsics.sign_i64 x)
  def f16 (x: f16) : t = x
  def f32 (x: f32) : t = intrinsics.fpconv_f32_f16 x
  def f64 (x: f64) : t = intrinsics.fpconv_f64_f16 x
  def bool (x: bool) : t = intrinsics.btof_bool_f16 x
  def to_i64 (x: t) : i64 = intrinsics.fptosi_f16_i64 x
  def to_f64 (x: t) : f64 = intrinsics.fpconv_f16_f64 x

  -- Arithmetic.
  def (+) (x: t) (y: t) : t = intrinsics.fadd16 (x, y)
  def (-) (x: t) (y: t) : t = intrinsics.fsub16 (x, y)
  def (*) (x: t) (y: t) : t = intrinsics.fmul16 (x, y)
  def (/) (x: t) (y: t) : t = intrinsics.fdiv16 (x, y)
  def (%) (x: t) (y: t) : t = intrinsics.fmod16 (x, y)
  def (**) (x: t) (y: t) : t = intrinsics.fpow16 (x, y)
  def neg (x: t) : t = intrinsics.neg_f16 x
  def abs (x: t) : t = intrinsics.fabs16 x
  def sgn (x: t) : t = intrinsics.fsignum16 x
  def max (x: t) (y: t) : t = intrinsics.fmax16 (x, y)
  def min (x: t) (y: t) : t = intrinsics.fmin16 (x, y)
  def recip (x: t) : t = 1 / x
  def from_fraction (x: i64) (y: i64) : t = i64 x / i64 y
  def mad (a: t) (b: t) (c: t) : t = intrinsics.mad16 (a, b, c)
  def fma (a: t) (b: t) (c: t) : t = intrinsics.fma16 (a, b, c)
  def lerp (a: t) (b: t) (w: t) : t = intrinsics.lerp16 (a, b, w)

  -- Comparisons and classification.
  def (==) (x: t) (y: t) : bool = intrinsics.eq_f16 (x, y)
  def (<) (x: t) (y: t) : bool = intrinsics.lt16 (x, y)
  def (<=) (x: t) (y: t) : bool = intrinsics.le16 (x, y)
  def (>) (x: t) (y: t) : bool = y < x
  def (>=) (x: t) (y: t) : bool = y <= x
  def (!=) (x: t) (y: t) : bool = !(x == y)
  def isinf (x: t) : bool = intrinsics.isinf16 x
  def isnan (x: t) : bool = intrinsics.isnan16 x

  -- Constants.
  def inf : t = 1 / 0
  def nan : t = 0 / 0
  def highest : t = inf
  def lowest : t = neg inf
  def pi : t = f64 3.141592653589793
  def e : t = f64 2.718281828459045
  def num_bits : i32 = 16
  -- | Deliberately the `f32` epsilon (2^-23), a subnormal in `f16`,
  -- kept for compatibility; the true half-precision epsilon is
  -- 2^-10 (0.0009765625).
  def epsilon : t = 1.1920929e-7

  -- Reductions.
  def sum [n] (xs: [n]t) : t = reduce (+) 0 xs
  def product [n] (xs: [n]t) : t = reduce (*) 1 xs
  def maximum [n] (xs: [n]t) : t = reduce max lowest xs
  def minimum [n] (xs: [n]t) : t = reduce min highest xs

  -- Powers, roots and logarithms.
  def sqrt (x: t) : t = intrinsics.sqrt16 x
  def rsqrt (x: t) : t = intrinsics.rsqrt16 x
  def cbrt (x: t) : t = intrinsics.cbrt16 x
  def exp (x: t) : t = intrinsics.exp16 x
  def log (x: t) : t = intrinsics.log16 x
  def log2 (x: t) : t = intrinsics.log2_16 x
  def log10 (x: t) : t = intrinsics.log10_16 x
  def log1p (x: t) : t = intrinsics.log1p_16 x
  def hypot (x: t) (y: t) : t = intrinsics.hypot16 (x, y)

  -- Trigonometry.
  def sin (x: t) : t = intrinsics.sin16 x
  def cos (x: t) : t = intrinsics.cos16 x
  def tan (x: t) : t = intrinsics.tan16 x
  def sinpi (x: t) : t = intrinsics.sinpi16 x
  def cospi (x: t) : t = intrinsics.cospi16 x
  def tanpi (x: t) : t = intrinsics.tanpi16 x
  def asin (x: t) : t = intrinsics.asin16 x
  def acos (x: t) : t = intrinsics.acos16 x
  def atan (x: t) : t = intrinsics.atan16 x
  def asinpi (x: t) : t = intrinsics.asinpi16 x
  def acospi (x: t) : t = intrinsics.acospi16 x
  def atanpi (x: t) : t = intrinsics.atanpi16 x
  def sinh (x: t) : t = intrinsics.sinh16 x
  def cosh (x: t) : t = intrinsics.cosh16 x
  def tanh (x: t) : t = intrinsics.tanh16 x
  def asinh (x: t) : t = intrinsics.asinh16 x
  def acosh (x: t) : t = intrinsics.acosh16 x
  def atanh (x: t) : t = intrinsics.atanh16 x
  def atan2 (y: t) (x: t) : t = intrinsics.atan2_16 (y, x)
  def atan2pi (y: t) (x: t) : t = intrinsics.atan2pi_16 (y, x)

  -- Special functions and rounding.
  def gamma (x: t) : t = intrinsics.gamma16 x
  def lgamma (x: t) : t = intrinsics.lgamma16 x
  def erf (x: t) : t = intrinsics.erf16 x
  def erfc (x: t) : t = intrinsics.erfc16 x
  def ceil (x: t) : t = intrinsics.ceil16 x
  def floor (x: t) : t = intrinsics.floor16 x
  def round (x: t) : t = intrinsics.round16 x
  -- | Truncates through `i16`, so only values that fit there come out right.
  def trunc (x: t) : t = i16 (intrinsics.fptosi_f16_i16 x)

  -- The bit representation.
  def from_bits (x: int_t) : t = intrinsics.bitstofp_i16_f16 (intrinsics.sign_i16 x)
  def to_bits (x: t) : int_t = intrinsics.unsign_i16 (intrinsics.fptobits_f16_i16 x)
  def get_bit (bit: i32) (x: t) : i32 = bits.get_bit bit (to_bits x)
  def set_bit (bit: i32) (x: t) (b: i32) : t = from_bits (bits.set_bit bit (to_bits x) b)
  def nextafter (x: t) (y: t) : t = intrinsics.nextafter16 (x, y)
  def ldexp (x: t) (k: i32) : t = intrinsics.ldexp16 (x, k)
  def copysign (x: t) (y: t) : t = intrinsics.copysign16 (x, y)
}
