"""Types shown as the program would write them (issue 29): inlay hints inside a
parametric module name its parameter's abstract types (`S.t`, not `t`), abbreviations in
scope are kept (`vec3.vector`, not the record it stands for), and hover on an operator —
a section, or one of a module parameter — shows its instantiated type."""

from lsprotocol import types

from lsp_util import open_doc, position_of, settled_diagnostics

VSPACE = """module type num = { type t val add: t -> t -> t val zero: t }
module F (S: num) = {
  def twice (x: S.t) = let y = S.add x x in y
}
module type vspace = { type real type vector val mk: real -> vector }
module mk3 (R: num) : vspace with real = R.t with vector = {x: R.t, y: R.t, z: R.t} = {
  type real = R.t
  type vector = {x: real, y: real, z: real}
  def mk (a: real) : vector = {x = a, y = a, z = a}
}
module f32num = { type t = f32 def add (a: f32) (b: f32) = a + b def zero = 0f32 }
module vec3 = mk3 f32num
def g (a: f32) = let v = vec3.mk a in v
def (<+>) 'a (x: a) (y: a) = (x, y)
def pair = (<+>) true false
module type ring = { type t val +: t -> t -> t }
module G (R: ring) = { def dbl (a: R.t) = a R.+ a }
"""


async def hints_of(client, uri):
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=40, character=0)),
        )
    )
    return {(h.position.line, h.label) for h in hints}


async def hover_type(client, uri, needle, offset):
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(VSPACE, needle, offset=offset),
        )
    )
    return hover.contents.value


async def test_inlay_hints_name_parameter_types_and_keep_abbreviations(client, workspace):
    path = workspace / "vspace.fut"
    path.write_text(VSPACE)
    uri = open_doc(client, path)
    assert await settled_diagnostics(client, uri, version=1) == []
    shown = await hints_of(client, uri)
    assert (2, ": S.t") in shown, shown  # let y = S.add x x, inside F (S: num)
    assert (12, ": vec3.vector") in shown, shown  # let v = vec3.mk a


async def test_hover_on_operators_shows_the_instantiated_type(client, workspace):
    path = workspace / "vspace.fut"
    path.write_text(VSPACE)
    uri = open_doc(client, path)
    await settled_diagnostics(client, uri, version=1)
    assert ": bool -> bool -> (bool, bool)" in await hover_type(client, uri, "(<+>) true", 2)
    assert ": R.t -> R.t -> R.t" in await hover_type(client, uri, "R.+ a", 2)
    assert ": S.t -> S.t -> S.t" in await hover_type(client, uri, "S.add x", 3)
