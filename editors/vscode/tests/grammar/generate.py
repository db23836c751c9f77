"""Regenerates tokens.fut: each case is a line of Futhark and the scopes its parts must
have; the caret lines are computed, so columns never drift. Run from editors/vscode."""

cases = [
 ("   def f 'a [n] (xs: [n]a) : i32 = length xs", [("def",0,"storage.type.function.futhark"),("f",1,"entity.name.function.futhark"),("'a",0,"entity.name.type.parameter.futhark"),(":",0,"keyword.operator.type.futhark"),("i32",0,"support.type.primitive.futhark"),("=",0,"keyword.operator.assignment.futhark"),("(",0,"punctuation.section.parens.futhark"),("[",0,"punctuation.section.brackets.futhark")]),
 ("   def (+++) (x: i32) (y: i32) = x + y", [("+++",0,"entity.name.function.operator.futhark"),("+",3,"keyword.operator.futhark")]),
 ("   entry main (n: i64) = if n > 0 then 1 else 0", [("entry",0,"storage.type.function.futhark"),("main",0,"entity.name.function.futhark"),("if",0,"keyword.control.futhark"),("then",0,"keyword.control.futhark"),("else",0,"keyword.control.futhark"),(">",0,"keyword.operator.futhark"),("0",0,"constant.numeric.integer.futhark")]),
 ("   type~ vec 't = #nil | #cons t", [("type",0,"storage.type.futhark"),("~",0,"storage.modifier.futhark"),("vec",0,"entity.name.type.futhark"),("'t",0,"entity.name.type.parameter.futhark"),("#nil",0,"constant.other.constructor.futhark"),("#cons",0,"constant.other.constructor.futhark")]),
 ("   module type S = { val z : i32 }", [("module",0,"storage.type.module.futhark"),("type",0,"storage.type.module.futhark"),("S",0,"entity.name.type.module-type.futhark"),("{",0,"punctuation.section.braces.futhark"),("val",0,"storage.type.function.futhark"),("z",0,"entity.name.function.futhark")]),
 ('   module M = { open import "lib/x" local def y = true }', [("module",0,"storage.type.module.futhark"),("M",0,"entity.name.namespace.futhark"),("open",0,"keyword.other.futhark"),("import",0,"keyword.other.futhark"),('"lib/x"',0,"string.quoted.double.futhark"),("local",0,"keyword.other.futhark"),("true",0,"constant.language.boolean.futhark")]),
 ("   let a = f32.sqrt 2.5f32 + 1_000i64 + 0x1Fu8 + 0b101 + 1e-3 + 'c' + 3f64 + 0x1.8p3", [("let",0,"keyword.control.futhark"),("f32",0,"entity.name.namespace.futhark"),(".",0,"punctuation.accessor.futhark"),("2.5f32",0,"constant.numeric.float.futhark"),("1_000i64",0,"constant.numeric.integer.futhark"),("0x1Fu8",0,"constant.numeric.integer.futhark"),("0b101",0,"constant.numeric.integer.futhark"),("1e-3",0,"constant.numeric.float.futhark"),("'c'",0,"constant.character.futhark"),("3f64",0,"constant.numeric.float.futhark"),("0x1.8p3",0,"constant.numeric.float.futhark")]),
 ("   #[inline] loop acc = 0 for i < n do acc + i", [("#[",0,"punctuation.definition.attribute.begin.futhark"),("inline",0,"entity.other.attribute-name.futhark"),("]",0,"punctuation.definition.attribute.end.futhark"),("loop",0,"keyword.control.futhark"),("for",0,"keyword.control.futhark"),("do",0,"keyword.control.futhark"),("<",0,"keyword.operator.futhark")]),
 ('   map (\\x -> x |> g) (0..<n) "a\\n", xs[1:]', [("map",0,"-entity.name.function.futhark"),("\\",0,"keyword.operator.lambda.futhark"),("->",0,"keyword.operator.arrow.futhark"),("|>",0,"keyword.operator.futhark"),("..<",0,"keyword.operator.range.futhark"),("\\n",0,"constant.character.escape.futhark"),(",",0,"punctuation.separator.comma.futhark")]),
 ("   match x case #some v -> v case _ -> 0 with x' = 1 + (`f` 2) + ???", [("match",0,"keyword.control.futhark"),("case",0,"keyword.control.futhark"),("#some",0,"constant.other.constructor.futhark"),("with",0,"keyword.control.futhark"),("x'",0,"-keyword.control.futhark"),("`f`",0,"keyword.operator.infix.futhark"),("???",0,"keyword.operator.hole.futhark")]),
 ("   let r = x :> [n]i32 in r.0 + M.N.x + u8.highest", [(":>",0,"keyword.operator.type.futhark"),("in",0,"keyword.control.futhark"),("M",0,"entity.name.namespace.futhark"),("N",0,"entity.name.namespace.futhark"),("u8",0,"entity.name.namespace.futhark")]),
]
out = ['-- SYNTAX TEST "source.futhark" "every token class of the Futhark grammar"', '',
       '-- | A doc comment.', '-- <------------ comment.line.documentation.futhark',
       '   -- a plain comment', '-- ^^^^^^^^^^^^^^^^^^ comment.line.double-dash.futhark', '']
for line, checks in cases:
    out.append(line)
    for sub, occ, scope in checks:
        i = -1
        for _ in range(occ + 1):
            i = line.index(sub, i + 1)
        assert i >= 3, (line, sub)
        out.append("--" + " " * (i - 2) + "^" * len(sub) + " " + scope)
    out.append("")
open("tests/grammar/tokens.fut", "w").write("\n".join(out))
