-- SYNTAX TEST "source.futhark" "every token class of the Futhark grammar"

-- | A doc comment.
-- <------------ comment.line.documentation.futhark
   -- a plain comment
-- ^^^^^^^^^^^^^^^^^^ comment.line.double-dash.futhark

   def f 'a [n] (xs: [n]a) : i32 = length xs
-- ^^^ storage.type.function.futhark
--     ^ entity.name.function.futhark
--       ^^ entity.name.type.parameter.futhark
--                 ^ keyword.operator.type.futhark
--                           ^^^ support.type.primitive.futhark
--                               ^ keyword.operator.assignment.futhark
--              ^ punctuation.section.parens.futhark
--          ^ punctuation.section.brackets.futhark

   def (+++) (x: i32) (y: i32) = x + y
--      ^^^ entity.name.function.operator.futhark
--                                 ^ keyword.operator.futhark

   entry main (n: i64) = if n > 0 then 1 else 0
-- ^^^^^ storage.type.function.futhark
--       ^^^^ entity.name.function.futhark
--                       ^^ keyword.control.futhark
--                                ^^^^ keyword.control.futhark
--                                       ^^^^ keyword.control.futhark
--                            ^ keyword.operator.futhark
--                              ^ constant.numeric.integer.futhark

   type~ vec 't = #nil | #cons t
-- ^^^^ storage.type.futhark
--     ^ storage.modifier.futhark
--       ^^^ entity.name.type.futhark
--           ^^ entity.name.type.parameter.futhark
--                ^^^^ constant.other.constructor.futhark
--                       ^^^^^ constant.other.constructor.futhark

   module type S = { val z : i32 }
-- ^^^^^^ storage.type.module.futhark
--        ^^^^ storage.type.module.futhark
--             ^ entity.name.type.module-type.futhark
--                 ^ punctuation.section.braces.futhark
--                   ^^^ storage.type.function.futhark
--                       ^ entity.name.function.futhark

   module M = { open import "lib/x" local def y = true }
-- ^^^^^^ storage.type.module.futhark
--        ^ entity.name.namespace.futhark
--              ^^^^ keyword.other.futhark
--                   ^^^^^^ keyword.other.futhark
--                          ^^^^^^^ string.quoted.double.futhark
--                                  ^^^^^ keyword.other.futhark
--                                                ^^^^ constant.language.boolean.futhark

   let a = f32.sqrt 2.5f32 + 1_000i64 + 0x1Fu8 + 0b101 + 1e-3 + 'c' + 3f64 + 0x1.8p3
-- ^^^ keyword.control.futhark
--         ^^^ entity.name.namespace.futhark
--            ^ punctuation.accessor.futhark
--                  ^^^^^^ constant.numeric.float.futhark
--                           ^^^^^^^^ constant.numeric.integer.futhark
--                                      ^^^^^^ constant.numeric.integer.futhark
--                                               ^^^^^ constant.numeric.integer.futhark
--                                                       ^^^^ constant.numeric.float.futhark
--                                                              ^^^ constant.character.futhark
--                                                                    ^^^^ constant.numeric.float.futhark
--                                                                           ^^^^^^^ constant.numeric.float.futhark

   #[inline] loop acc = 0 for i < n do acc + i
-- ^^ punctuation.definition.attribute.begin.futhark
--   ^^^^^^ entity.other.attribute-name.futhark
--         ^ punctuation.definition.attribute.end.futhark
--           ^^^^ keyword.control.futhark
--                        ^^^ keyword.control.futhark
--                                  ^^ keyword.control.futhark
--                              ^ keyword.operator.futhark

   map (\x -> x |> g) (0..<n) "a\n", xs[1:]
-- ^^^ -entity.name.function.futhark
--      ^ keyword.operator.lambda.futhark
--         ^^ keyword.operator.arrow.futhark
--              ^^ keyword.operator.futhark
--                      ^^^ keyword.operator.range.futhark
--                              ^^ constant.character.escape.futhark
--                                 ^ punctuation.separator.comma.futhark

   match x case #some v -> v case _ -> 0 with x' = 1 + (`f` 2) + ???
-- ^^^^^ keyword.control.futhark
--         ^^^^ keyword.control.futhark
--              ^^^^^ constant.other.constructor.futhark
--                                       ^^^^ keyword.control.futhark
--                                            ^^ -keyword.control.futhark
--                                                      ^^^ keyword.operator.infix.futhark
--                                                               ^^^ keyword.operator.hole.futhark

   let r = x :> [n]i32 in r.0 + M.N.x + u8.highest
--           ^^ keyword.operator.type.futhark
--                     ^^ keyword.control.futhark
--                              ^ entity.name.namespace.futhark
--                                ^ entity.name.namespace.futhark
--                                      ^^ entity.name.namespace.futhark
