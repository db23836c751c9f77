"""Issue 29's editor items: file watching registered at run time, the exit code of `exit`
without `shutdown`, superseded diagnostics left unpublished, document highlight,
selection ranges, and references and workspace symbols without the prelude's internals."""

import asyncio

from lsprotocol import types

from test_robustness import RawServer
from lsp_util import MAIN, diagnostics_for, open_doc, position_of, settled_diagnostics


def tdpp(uri, pos):
    return dict(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)


async def test_file_watching_is_registered_and_changed_files_are_reread(client, workspace):
    for _ in range(100):
        regs = client.__dict__.get("registrations", [])
        if regs:
            break
        await asyncio.sleep(0.05)
    (reg,) = [r for r in regs if r.method == "workspace/didChangeWatchedFiles"]
    assert reg.register_options["watchers"][0]["globPattern"] == "**/*.fut"
    # A file changed on disk (not open) is read again when the client reports it.
    uri = open_doc(client, workspace / "main.fut")
    assert await settled_diagnostics(client, uri, version=1) == []
    util = workspace / "lib" / "util.fut"
    util.write_text(util.read_text().replace("def double", "def twice"))
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=util.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    diags = await diagnostics_for(client, uri, version=1, until=lambda ds: ds != [])
    assert any("double" in d.message for d in diags), diags


def test_exit_without_shutdown_is_an_error_exit(workspace):
    exit_ = {"jsonrpc": "2.0", "method": "exit"}
    server = RawServer(workspace)
    server.initialize()
    server.send(exit_)
    assert server.proc.wait(timeout=10) == 1
    server = RawServer(workspace)
    server.initialize()
    assert "result" in server.request(2, "shutdown")
    server.send(exit_)
    assert server.proc.wait(timeout=10) == 0


async def test_superseded_diagnostics_are_not_published(client, workspace):
    path = workspace / "burst.fut"
    path.write_text("def a = 0\n")
    uri = open_doc(client, path)
    await settled_diagnostics(client, uri, version=1)
    log = client.__dict__.setdefault("versions_published", {}).setdefault(uri, [])
    log.clear()
    # Enough text that checking it takes a moment.
    body = "".join(f"def f{i} (x: i32) = x * {i} + 1\n" for i in range(300))
    last = 40
    for v in range(2, last + 1):
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=v),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=body + f"def a = {v}\n")],
            )
        )
    await settled_diagnostics(client, uri, version=last)
    stale = [v for v in log if v < last]
    # The edits arrive together: diagnostics of versions the server already knows to be
    # outdated are not sent (a few may leave before the next edit is read).
    assert len(stale) <= 5, log


async def test_document_highlight(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    hs = await client.text_document_document_highlight_async(
        types.DocumentHighlightParams(**tdpp(uri, position_of(MAIN, "let y", offset=4)))
    )
    got = sorted((h.range.start.line, h.range.start.character, h.kind) for h in hs)
    assert got == [
        (5, 6, types.DocumentHighlightKind.Write),
        (6, 12, types.DocumentHighlightKind.Read),
    ], got


async def test_selection_ranges_grow_to_the_declaration_and_file(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    pos = position_of(MAIN, "x * x", offset=4)
    (sel,) = await client.text_document_selection_range_async(
        types.SelectionRangeParams(text_document=types.TextDocumentIdentifier(uri=uri), positions=[pos])
    )
    chain = []
    while sel is not None:
        chain.append(sel.range)
        sel = sel.parent
    # The token `x`, …, the declaration of quad, the whole file.
    assert (chain[0].start.line, chain[0].start.character, chain[0].end.character) == (5, 14, 15)
    assert any(r.start.line == 4 and r.end.line == 6 for r in chain), chain
    assert chain[-1].start == types.Position(line=0, character=0)
    for inner, outer in zip(chain, chain[1:]):
        assert (outer.start.line, outer.start.character) <= (inner.start.line, inner.start.character)
        assert (outer.end.line, outer.end.character) >= (inner.end.line, inner.end.character)


async def test_references_and_symbols_leave_out_prelude_internals(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            **tdpp(uri, position_of(MAIN, "map (")),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    assert sorted(r.uri.rsplit("/", 1)[1] for r in refs) == ["main.fut", "main.fut"], refs
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="sum"))
    assert not [s for s in symbols if "/prelude/" in s.location.uri], symbols
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="double"))
    assert [s.name for s in symbols] == ["double"]


async def test_completion_in_an_import_string_offers_paths(client, workspace):
    path = workspace / "imp.fut"
    text = 'import "li'
    path.write_text(text)
    uri = open_doc(client, path)
    items = await client.text_document_completion_async(
        types.CompletionParams(**tdpp(uri, position_of(text, "li", offset=2)))
    )
    labels = [i.label for i in (items.items if hasattr(items, "items") else items)]
    # Every file and folder beside this one (the editor filters by what is typed).
    assert sorted(labels) == ["lib/", "main"], labels
    text = 'import "lib/'
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    items = await client.text_document_completion_async(
        types.CompletionParams(**tdpp(uri, position_of(text, "lib/", offset=4)))
    )
    labels = [i.label for i in (items.items if hasattr(items, "items") else items)]
    assert labels == ["util"], labels


async def test_hover_on_a_record_field(client, workspace):
    path = workspace / "rec.fut"
    text = "type vec = {x: f32, y: f32}\ndef len (v: vec) = v.x + v.y\n"
    path.write_text(text)
    uri = open_doc(client, path)
    await settled_diagnostics(client, uri, version=1)
    hover = await client.text_document_hover_async(
        types.HoverParams(**tdpp(uri, position_of(text, "v.x", offset=2)))
    )
    assert hover is not None
    assert "f32" in hover.contents.value and "record field `x`" in hover.contents.value, hover


async def test_definition_of_a_record_field_and_type_definition_of_a_record(client, workspace):
    path = workspace / "rec2.fut"
    text = "type vec = {x: f32, y: f32}\ndef len (v: vec) = v.x + v.y\n"
    path.write_text(text)
    uri = open_doc(client, path)
    await settled_diagnostics(client, uri, version=1)
    result = await client.text_document_definition_async(
        types.DefinitionParams(**tdpp(uri, position_of(text, "v.y", offset=2)))
    )
    assert [(r.range.start.line, r.range.start.character) for r in result] == [(0, 20)], result
    result = await client.text_document_type_definition_async(
        types.TypeDefinitionParams(**tdpp(uri, position_of(text, "v.x")))
    )
    assert [(r.range.start.line, r.range.start.character) for r in result] == [(0, 5)], result


async def test_completion_after_a_record_literal_offers_its_fields(client, workspace):
    path = workspace / "dot.fut"
    text = "def z = {x = 1i32, y = 2i32}."
    path.write_text(text)
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1)
    items = await client.text_document_completion_async(
        types.CompletionParams(**tdpp(uri, position_of(text, "}.", offset=2)))
    )
    labels = sorted(i.label for i in (items.items if hasattr(items, "items") else items))
    assert labels == ["x", "y"], labels


async def test_rename_refuses_a_name_that_captures_another_binding(client, workspace):
    import pytest

    path = workspace / "cap.fut"
    text = "def f (x: i32) = let y = x + 1 in y * x\n"
    path.write_text(text)
    uri = open_doc(client, path)
    with pytest.raises(Exception) as err:
        await client.text_document_rename_async(
            types.RenameParams(**tdpp(uri, position_of(text, "let y", offset=4)), new_name="x")
        )
    assert "refer to this definition" in str(err.value)
    edit = await client.text_document_rename_async(
        types.RenameParams(**tdpp(uri, position_of(text, "let y", offset=4)), new_name="z")
    )
    assert len(edit.changes[uri]) == 2


async def test_rename_updates_the_examples(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    edit = await client.text_document_rename_async(
        types.RenameParams(**tdpp(uri, position_of(MAIN, "def quad", offset=4)), new_name="quadruple")
    )
    lines = sorted(e.range.start.line for e in edit.changes[uri])
    assert lines == [3, 4], lines  # `-- >>> quad 3` and the definition
