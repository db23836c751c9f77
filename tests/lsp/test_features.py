"""End-to-end tests of the editor features through a real LSP client."""

import pathlib

from lsprotocol import types

from lsp_util import MAIN, diagnostics_for, open_doc, position_of, settled_diagnostics


def tdpp(uri, pos):
    return dict(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)


async def test_diagnostics_appear_for_a_syntax_error_and_clear_when_fixed(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    assert await settled_diagnostics(client, uri, version=1) == []
    # Inject a syntax error at the end of line 5 (`let y = x * x`).
    broken = types.Range(start=position_of(MAIN, "x * x", offset=5), end=position_of(MAIN, "x * x", offset=5))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(range=broken, text=" * )")],
        )
    )
    diags = await diagnostics_for(client, uri, version=2)
    assert diags, "a syntax error is reported"
    assert all(d.source == "futhark" for d in diags)
    assert any(d.code == "syntax-error" or "expected" in d.message for d in diags)
    fix = types.Range(start=broken.start, end=types.Position(line=broken.start.line, character=broken.start.character + 4))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[types.TextDocumentContentChangePartial(range=fix, text="")],
        )
    )
    assert await settled_diagnostics(client, uri, version=3) == []


async def test_unresolved_import_is_reported(client, workspace):
    path = workspace / "bad.fut"
    path.write_text('import "missing"\ndef x = 1\n')
    uri = open_doc(client, path)
    diags = await settled_diagnostics(client, uri, version=1)
    errors = [d.code for d in diags if d.severity == types.DiagnosticSeverity.Error]
    assert errors == ["import-not-found"]


async def test_document_symbols(client, workspace):
    uri = open_doc(client, workspace / "lib" / "util.fut")
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert [s.name for s in symbols] == ["double", "Vec"]
    assert symbols[0].kind == types.SymbolKind.Function
    assert symbols[0].detail == "def double (x: i32) : i32"
    assert [c.name for c in symbols[1].children] == ["norm"]


async def test_semantic_tokens(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    legend = client.server_capabilities.semantic_tokens_provider.legend
    result = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    data = result.data
    assert data and len(data) % 5 == 0
    # Decode to (line, col, length, type).
    line = col = 0
    decoded = []
    for i in range(0, len(data), 5):
        dl, dc, length, ty, _mods = data[i : i + 5]
        line += dl
        col = col + dc if dl == 0 else dc
        decoded.append((line, col, length, legend.token_types[ty]))
    lines = MAIN.split("\n")
    text_of = {(l, c): lines[l][c : c + n] for l, c, n, _ in decoded}
    kinds = {(text_of[(l, c)], t) for l, c, _, t in decoded}
    assert ("double", "function") in kinds
    assert ("def", "keyword") in kinds
    assert ("f32", "namespace") in kinds
    assert ("x", "parameter") in kinds
    assert ("3", "comment") not in kinds
    assert any(t == "comment" for _, _, _, t in decoded)


async def test_folding_ranges(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    folds = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    spans = {(f.start_line, f.end_line) for f in folds}
    assert (4, 6) in spans, spans  # def quad … in double y


async def test_definition_across_files(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    result = await client.text_document_definition_async(
        types.DefinitionParams(**tdpp(uri, position_of(MAIN, "double y", offset=2)))
    )
    assert len(result) == 1
    assert result[0].uri.endswith("/lib/util.fut")
    assert result[0].range.start == types.Position(line=1, character=4)


async def test_definition_into_the_prelude(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    result = await client.text_document_definition_async(
        types.DefinitionParams(**tdpp(uri, position_of(MAIN, "map (")))
    )
    assert len(result) == 1
    assert result[0].uri.endswith("/prelude/soacs.fut")
    path = pathlib.Path(result[0].uri.removeprefix("file://"))
    assert "def map" in path.read_text(), "the prelude is browsable on disk"


async def test_references(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            **tdpp(uri, position_of(MAIN, "let y", offset=4)),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert sorted((r.range.start.line, r.range.start.character) for r in refs) == [(5, 6), (6, 12)]
    # A definition in another file: its uses in main.fut too.
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            **tdpp(uri, position_of(MAIN, "double y")),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert sorted(r.uri.rsplit("/", 1)[1] for r in refs) == ["main.fut", "util.fut"]


async def test_rename(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    prep = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(**tdpp(uri, position_of(MAIN, "double y")))
    )
    assert prep.placeholder == "double"
    edit = await client.text_document_rename_async(
        types.RenameParams(**tdpp(uri, position_of(MAIN, "double y")), new_name="twice")
    )
    files = {u.rsplit("/", 1)[1]: edits for u, edits in edit.changes.items()}
    assert set(files) == {"main.fut", "util.fut"}
    assert all(e.new_text == "twice" for es in files.values() for e in es)


async def test_rename_rejects_a_keyword(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    try:
        await client.text_document_rename_async(
            types.RenameParams(**tdpp(uri, position_of(MAIN, "quad (")), new_name="let")
        )
    except Exception as e:  # the server answers an error
        assert "keyword" in str(e)
    else:
        raise AssertionError("renaming to a keyword must fail")


async def test_completion_after_f32_dot(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    result = await client.text_document_completion_async(
        types.CompletionParams(**tdpp(uri, position_of(MAIN, "f32.sqrt v", offset=4)))
    )
    items = result if isinstance(result, list) else result.items
    labels = {i.label for i in items}
    assert {"sqrt", "sin", "pi", "abs"} <= labels
    sqrt = next(i for i in items if i.label == "sqrt")
    assert sqrt.kind == types.CompletionItemKind.Function


async def test_completion_of_names_in_scope(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    result = await client.text_document_completion_async(
        types.CompletionParams(**tdpp(uri, position_of(MAIN, "double y", offset=0)))
    )
    items = result if isinstance(result, list) else result.items
    labels = {i.label for i in items}
    assert {"y", "x", "double", "quad", "map", "Vec", "loop"} <= labels


async def test_hover_with_doc_comment(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    hover = await client.text_document_hover_async(
        types.HoverParams(**tdpp(uri, position_of(MAIN, "double y", offset=1)))
    )
    assert "def double (x: i32) : i32" in hover.contents.value
    assert "Doubles an integer." in hover.contents.value


async def test_signature_help(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    help = await client.text_document_signature_help_async(
        types.SignatureHelpParams(**tdpp(uri, position_of(MAIN, "double y", offset=7)))
    )
    assert help.signatures[0].label == "def double (x: i32) : i32"
    assert help.active_parameter == 0


async def test_code_lens_and_run(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert len(lenses) == 1 and lenses[0].command.arguments[1] == "quad 3"
    assert lenses[0].range.start.line == 3
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=lenses[0].command.command, arguments=lenses[0].command.arguments)
    )
    assert (result["value"], result["type"]) == ("18", "i32"), result


async def test_workspace_symbols(client, workspace):
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="norm"))
    assert any(s.name == "norm" and s.location.uri.endswith("util.fut") for s in symbols)


async def test_inlay_hints_show_inferred_types(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=20, character=0)),
        )
    )
    shown = {(h.position.line, h.position.character, h.label) for h in hints}
    assert (5, 7, ": i32") in shown, shown  # let y = x * x
    assert (9, 9, ": f32") in shown, shown  # \v -> …


async def test_type_errors_are_reported(client, workspace):
    path = workspace / "typed.fut"
    path.write_text("def x : i32 = true\n")
    uri = open_doc(client, path)
    diags = await settled_diagnostics(client, uri, version=1)
    assert len(diags) == 1 and diags[0].severity == types.DiagnosticSeverity.Error


async def test_hover_shows_the_inferred_type(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    await settled_diagnostics(client, uri, version=1)  # the check of this text is done
    hover = await client.text_document_hover_async(
        types.HoverParams(**tdpp(uri, position_of(MAIN, "let y", offset=4)))
    )
    assert ": i32" in hover.contents.value


async def test_a_file_deleted_while_open_becomes_a_missing_import(client, workspace):
    main = open_doc(client, workspace / "main.fut")
    util_path = workspace / "lib" / "util.fut"
    util = open_doc(client, util_path)
    assert await settled_diagnostics(client, main, version=1) == []
    util_path.unlink()
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=util))
    )
    diags = await diagnostics_for(
        client, main, version=1, until=lambda ds: any(d.code == "import-not-found" for d in ds)
    )
    assert any("lib/util" in d.message for d in diags if d.code == "import-not-found")
    # Saving it again brings it back for its importers.
    util_path.write_text("def double (x: i32) : i32 = x * 2\nmodule Vec = { def norm (v: [3]f32) : f32 = v[0] }\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=util, type=types.FileChangeType.Created)]
        )
    )
    assert await diagnostics_for(client, main, version=1, until=lambda ds: ds == []) == []


async def test_formatting_normalises_the_layout_of_the_unsaved_text(client, workspace):
    path = workspace / "messy.fut"
    path.write_text("def a = 1\n")
    # The editor's text, not the file's, is formatted.
    uri = open_doc(client, path, text="def a = 1   \r\n\n\n\ndef b = f [a]  \n")
    assert client.server_capabilities.document_formatting_provider
    fmt = types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        options=types.FormattingOptions(tab_size=2, insert_spaces=True),
    )
    edits = await client.text_document_formatting_async(fmt)
    assert len(edits) == 1
    assert edits[0].range.start == types.Position(line=0, character=0)
    assert edits[0].range.end == types.Position(line=5, character=0)
    assert edits[0].new_text == "def a = 1\n\ndef b = f [a]\n"
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=edits[0].new_text)],
        )
    )
    assert len(await client.text_document_formatting_async(fmt)) == 0
