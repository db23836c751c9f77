-- | Automatic differentiation of Futhark functions.
--
-- Derivatives are taken with respect to every floating-point number
-- inside the argument (scalars, array elements, tuple and record
-- fields); integers and booleans carry no derivative. A tangent or
-- cotangent has the same type and shape as the value it belongs to.

-- | Forward mode: `jvp2 f x x'` returns `(f x, J x')` where `J` is the
-- Jacobian of `f` at `x`, i.e. the directional derivative of `f` at
-- `x` in direction `x'`. Costs a small constant factor over `f x`.
def jvp2 'a 'b (f: a -> b) (x: a) (x': a) : (b, b) =
  intrinsics.jvp2 f x x'

-- | Reverse mode: `vjp2 f x y'` returns `(f x, y' J)`, the cotangent
-- `y'` of the result pulled back to a cotangent of the input; for a
-- scalar-valued `f` and `y' = 1` that is the gradient. Costs a small
-- constant factor over `f x`, plus memory for the intermediate values.
def vjp2 'a 'b (f: a -> b) (x: a) (y': b) : (b, a) =
  intrinsics.vjp2 f x y'

-- | `jvp2` for `n` tangents at once: returns `f x` and the derivative
-- in each of the directions `x'[i]`. Equivalent to mapping `jvp` over
-- `x'`, but evaluates the primal only once.
def jmp2 'a 'b [n] (f: a -> b) (x: a) (x': [n]a) : (b, [n]b) =
  intrinsics.jmp2 f x x'

-- | `vjp2` for `n` cotangents at once: returns `f x` and the pullback
-- of each `y'[i]`. Equivalent to mapping `vjp` over `y'`, but
-- evaluates the primal only once.
def mjp2 'a 'b [n] (f: a -> b) (x: a) (y': [n]b) : (b, [n]a) =
  intrinsics.mjp2 f x y'

-- | The derivative of `f` at `x` in direction `x'` (forward mode); the
-- second component of `jvp2`.
def jvp 'a 'b (f: a -> b) (x: a) (x': a) : b =
  (jvp2 f x x').1

-- | The cotangent `y'` of `f x` pulled back to the input (reverse
-- mode); the second component of `vjp2`.
def vjp 'a 'b (f: a -> b) (x: a) (y': b) : a =
  (vjp2 f x y').1

-- | The derivatives of `f` at `x` in each direction `x'[i]`; the second
-- component of `jmp2`.
def jmp 'a 'b [n] (f: a -> b) (x: a) (x': [n]a) : [n]b =
  (jmp2 f x x').1

-- | The pullbacks of each cotangent `y'[i]`; the second component of
-- `mjp2`.
def mjp 'a 'b [n] (f: a -> b) (x: a) (y': [n]b) : [n]a =
  (mjp2 f x y').1

-- | Compute `f x`, but tell reverse-mode differentiation to use `f'`
-- instead of differentiating `f`: the cotangent of `x` becomes
-- `f' res b_adj`, where `res` is `f x` and `b_adj` its cotangent.
-- Variables free in `f` receive no derivative. Without reverse-mode
-- differentiation this is just `f x`.
def with_vjp 'a 'b (f: a -> b) (f': (res: b) -> (b_adj: b) -> a) (x: a) : b =
  intrinsics.with_vjp f f' x

-- | Like `with_vjp` for a function that also saves data for its
-- adjoint: `f x` returns `(tape, y)` and only `y` is returned. Under
-- reverse mode the cotangent of `x` is `f' (tape, y_adj)`, where
-- `y_adj` is the cotangent of `y`.
def with_vjp_tape 'a 'b 'c (f: a -> (c, b)) (f': (c, b) -> a) (x: a) : b =
  let adjoint (tape: c, _: b) (_: c, y_adj: b) : a = f' (tape, y_adj)
  let (_, y) = intrinsics.with_vjp f adjoint x
  in y
