"""Code actions (issue 29): quick fixes for the diagnostics whose message says what the
fix is — a missing import, a size annotation, `*` without effect, an unused size
parameter — applied through the client and checked by the diagnostics that follow."""

from lsprotocol import types

from lsp_util import apply_utf16_edit, diagnostics_for, open_doc, settled_diagnostics


async def quick_fixes(client, uri, range_, only=None):
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=range_,
        context=types.CodeActionContext(diagnostics=[], only=only),
    )
    return await client.text_document_code_action_async(params)


def whole(text):
    lines = text.split("\n")
    return types.Range(
        start=types.Position(line=0, character=0),
        end=types.Position(line=len(lines) - 1, character=len(lines[-1])),
    )


def apply(text, action, uri):
    edits = action.edit.changes[uri]
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = apply_utf16_edit(text, e.range.start, e.range.end, e.new_text)
    return text


async def fix_and_recheck(client, uri, text, title_part):
    """Applies the fix whose title contains `title_part` as an edit of the open document
    and returns the new text and its settled diagnostics."""
    actions = await quick_fixes(client, uri, whole(text))
    chosen = [a for a in actions if title_part in a.title]
    assert len(chosen) == 1, [a.title for a in actions]
    (action,) = chosen
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.diagnostics, action
    fixed = apply(text, action, uri)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    return fixed, await settled_diagnostics(client, uri, version=2)


async def test_the_quick_fix_kind_is_advertised(client):
    provider = client.server_capabilities.code_action_provider
    assert types.CodeActionKind.QuickFix in provider.code_action_kinds


async def test_an_unknown_name_gets_an_import_of_the_file_defining_it(client, workspace):
    (workspace / "app").mkdir()
    path = workspace / "app" / "use.fut"
    (workspace / "app" / "other.fut").write_text("def unrelated = 0i32\n")
    text = 'import "other"\n\ndef eight = double 4\ndef n = Vec.norm [1, 2, 3]\n'
    path.write_text(text)
    uri = open_doc(client, path)
    # `Vec.norm`: the module `Vec` and then the name are unknown.
    diags = await diagnostics_for(client, uri, version=1, until=lambda ds: len(ds) == 3)
    assert {d.code for d in diags} == {"unknown-name"}
    actions = await quick_fixes(client, uri, whole(text))
    titles = sorted(a.title for a in actions)
    assert titles == [
        'Import "../lib/util" (defines `Vec`)',
        'Import "../lib/util" (defines `double`)',
    ]
    # Each names the diagnostic it fixes.
    for a in actions:
        (d,) = a.diagnostics
        assert d.code == "unknown-name" and d.range.start.line in (2, 3)
    fixed, diags = await fix_and_recheck(client, uri, text, "`double`")
    assert fixed.startswith('import "other"\nimport "../lib/util"\n\ndef eight')
    assert diags == []


async def test_a_size_annotation_is_fixed_to_the_actual_size(client, workspace):
    path = workspace / "sizes.fut"
    text = "def f (xs: [3]i32) : [4]i32 = xs\n"
    path.write_text(text)
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1, until=lambda ds: len(ds) == 1)
    titles = [a.title for a in await quick_fixes(client, uri, whole(text))]
    assert titles == ["Change size `[4]` to `[3]`", "Coerce the result with `:> [4]i32`"]
    fixed, diags = await fix_and_recheck(client, uri, text, "Change size")
    assert fixed == "def f (xs: [3]i32) : [3]i32 = xs\n"
    assert diags == []


async def test_a_coercion_fixes_a_size_the_program_cannot_name(client, workspace):
    path = workspace / "filter.fut"
    text = "def f (xs: []i32) : [2]i32 = filter (>0) xs\n"
    path.write_text(text)
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1, until=lambda ds: len(ds) == 1)
    fixed, diags = await fix_and_recheck(client, uri, text, "Coerce")
    assert fixed == "def f (xs: []i32) : [2]i32 = (filter (>0) xs) :> [2]i32\n"
    assert diags == []


async def test_warnings_and_size_parameters_that_say_their_fix(client, workspace):
    path = workspace / "warn.fut"
    text = "type t [n] = i32\ndef u (x: *i32) : i32 = x\n"
    path.write_text(text)
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1, until=lambda ds: len(ds) == 2)
    # Only the fix for the diagnostic under the cursor (on the `*` of line 2) is offered.
    at = types.Position(line=1, character=11)
    line2 = types.Range(start=at, end=at)
    (action,) = await quick_fixes(client, uri, line2)
    assert action.title.startswith("Remove `*`") and action.is_preferred
    text = apply(text, action, uri)
    actions = await quick_fixes(client, uri, whole(text))
    assert [a.title for a in actions] == ["Remove the unused size parameter `[n]`", action.title]
    fixed = apply(text, actions[0], uri)
    assert fixed == "type t = i32\ndef u (x: i32) : i32 = x\n"
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    assert await settled_diagnostics(client, uri, version=2) == []


async def test_other_kinds_and_bad_ranges_get_no_actions(client, workspace):
    path = workspace / "sizes.fut"
    text = "def f (xs: [3]i32) : [4]i32 = xs\n"
    path.write_text(text)
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1, until=lambda ds: len(ds) == 1)
    assert len(await quick_fixes(client, uri, whole(text), only=[types.CodeActionKind.Refactor])) == 0
    far = types.Range(start=types.Position(line=90, character=0), end=types.Position(line=99, character=4))
    assert len(await quick_fixes(client, uri, far)) == 0
    backwards = types.Range(start=types.Position(line=0, character=30), end=types.Position(line=0, character=2))
    assert len(await quick_fixes(client, uri, backwards)) <= 2
