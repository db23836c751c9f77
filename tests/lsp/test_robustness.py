"""The server must never fall over: malformed JSON-RPC, unknown methods, bad params,
out-of-range positions, unknown or deleted files, and long streams of random edits."""

import asyncio
import json
import pathlib
import random
import subprocess

from lsprotocol import types

from conftest import server_path
from lsp_util import MAIN, apply_utf16_edit, diagnostics_for, open_doc, settled_diagnostics


# ---------------------------------------------------------------------------------------
# Raw JSON-RPC over pipes (a real client library refuses to send malformed messages).


class RawServer:
    def __init__(self, root: pathlib.Path):
        self.proc = subprocess.Popen(
            [server_path()], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.root = root

    def send_bytes(self, body: bytes):
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, msg: dict):
        self.send_bytes(json.dumps(msg).encode())

    def read(self) -> dict:
        headers = {}
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError("server closed its output")
            line = line.strip()
            if not line:
                break
            k, v = line.decode().split(":", 1)
            headers[k.lower()] = v.strip()
        return json.loads(self.proc.stdout.read(int(headers["content-length"])))

    def response(self, id_) -> dict:
        """Reads messages until the response with `id_` (skipping notifications)."""
        while True:
            msg = self.read()
            if msg.get("id") == id_ and "method" not in msg:
                return msg

    def request(self, id_, method, params=None) -> dict:
        self.send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
        return self.response(id_)

    def initialize(self):
        res = self.request(1, "initialize", {"processId": None, "rootUri": self.root.as_uri(), "capabilities": {}})
        assert "capabilities" in res["result"]
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def close(self):
        try:
            self.request(9999, "shutdown")
            self.send({"jsonrpc": "2.0", "method": "exit"})
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def test_malformed_json_rpc_does_not_kill_the_server(workspace):
    server = RawServer(workspace)
    try:
        server.initialize()
        server.send_bytes(b"{this is not json")
        err = server.read()
        assert err["error"]["code"] == -32700 and err["id"] is None
        server.send_bytes(b'{"jsonrpc": "2.0", "id": 5}')  # neither request nor response
        server.send_bytes(b'[1, 2, 3]')
        server.send({"jsonrpc": "2.0", "id": 6, "method": "textDocument/hover", "params": 42})
        assert server.response(6)["error"]["code"] == -32602
        # Still alive and answering.
        uri = (workspace / "main.fut").as_uri()
        res = server.request(7, "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 6, "character": 6}})
        assert "result" in res
    finally:
        server.close()


def test_unknown_methods(workspace):
    server = RawServer(workspace)
    try:
        server.initialize()
        assert server.request(2, "futhark/noSuchThing", {})["error"]["code"] == -32601
        server.send({"jsonrpc": "2.0", "method": "$/noSuchNotification", "params": {}})
        server.send({"jsonrpc": "2.0", "method": "custom/notification"})
        assert "result" in server.request(3, "workspace/symbol", {"query": "double"})
    finally:
        server.close()


def test_workspace_symbols_asked_at_once_wait_for_the_scan(tmp_path):
    """A `workspace/symbol` sent right behind `initialized` must see unopened files: the
    scan runs beside requests, so the server has to wait for it (a CI run once lost this
    race). Many files make the scan long enough for a missing wait to show."""
    for i in range(1500):
        (tmp_path / f"m{i:04}.fut").write_text(f"def filler_{i} (x: i32) = x + {i}\n")
    (tmp_path / "zz_last.fut").write_text("def needle_symbol (x: f32) = x * 2\n")
    server = RawServer(tmp_path)
    try:
        server.initialize()
        res = server.request(2, "workspace/symbol", {"query": "needle_symbol"})
        names = [(s["name"], s["location"]["uri"].rsplit("/", 1)[1]) for s in res["result"]]
        assert ("needle_symbol", "zz_last.fut") in names, names
    finally:
        server.close()


# ---------------------------------------------------------------------------------------
# Through the client.

FAR = types.Position(line=10_000, character=10_000)


async def test_out_of_range_positions(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    doc = types.TextDocumentIdentifier(uri=uri)
    for pos in [FAR, types.Position(line=3, character=10_000), types.Position(line=0, character=0)]:
        await client.text_document_hover_async(types.HoverParams(text_document=doc, position=pos))
        await client.text_document_definition_async(types.DefinitionParams(text_document=doc, position=pos))
        await client.text_document_completion_async(types.CompletionParams(text_document=doc, position=pos))
        await client.text_document_signature_help_async(types.SignatureHelpParams(text_document=doc, position=pos))
        await client.text_document_references_async(
            types.ReferenceParams(text_document=doc, position=pos, context=types.ReferenceContext(include_declaration=True))
        )
        await client.text_document_prepare_rename_async(types.PrepareRenameParams(text_document=doc, position=pos))
    await client.text_document_semantic_tokens_range_async(
        types.SemanticTokensRangeParams(text_document=doc, range=types.Range(start=FAR, end=types.Position(line=0, character=0)))
    )
    # An edit with an out-of-range range is clamped, not fatal.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=FAR, end=FAR), text="\ndef tail = 1\n")],
        )
    )
    diags = await settled_diagnostics(client, uri, version=2)
    assert [d for d in diags if d.severity == types.DiagnosticSeverity.Error] == []


async def test_unknown_and_deleted_files(client, workspace):
    ghost = types.TextDocumentIdentifier(uri=(workspace / "ghost.fut").as_uri())
    try:
        await client.text_document_hover_async(types.HoverParams(text_document=ghost, position=FAR))
    except Exception:
        pass  # an error answer is fine; a dead server is not
    path = workspace / "doomed.fut"
    path.write_text("def gone = 1\n")
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1)
    path.unlink()
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Deleted)])
    )
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=5))
    )
    assert hover is not None  # the open buffer still counts
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="quad"))
    assert any(s.name == "quad" for s in symbols)


PIECES = ["def ", "let ", " in ", "x", "y", "(", ")", "[", "]", " = ", "+", " ", "\n", "1", "2.5", "f32.", '"s"',
          "-- c\n", "match ", "case ", "->", "𝔸", "é", "{", "}", ",", "#c", "loop", "\\", "'"]


def random_edit(rng: random.Random, text: str):
    """A random insertion, deletion or replacement, as an LSP range plus text."""
    lines = text.split("\n")

    def pos():
        line = rng.randrange(len(lines))
        units = len(lines[line].encode("utf-16-le")) // 2
        return types.Position(line=line, character=rng.randint(0, units + 2))

    a, b = pos(), pos()
    if (b.line, b.character) < (a.line, a.character):
        a, b = b, a
    if rng.random() < 0.5:
        b = a
    new = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 3)))
    return a, b, new


async def test_random_edits_leave_the_diagnostics_of_a_fresh_parse(client, workspace):
    rng = random.Random(1234)
    text = MAIN
    uri = open_doc(client, workspace / "main.fut", text)
    version = 1
    for _ in range(1000):
        start, end, new = random_edit(rng, text)
        text = apply_utf16_edit(text, start, end, new)
        version += 1
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end), text=new)],
            )
        )
    edited = await settled_diagnostics(client, uri, version=version, timeout=60)
    fresh_path = workspace / "fresh.fut"
    fresh_path.write_text(text)
    fresh_uri = open_doc(client, fresh_path, text)
    fresh = await settled_diagnostics(client, fresh_uri, version=1, timeout=60)

    def key(ds):
        return [(d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character, d.code, d.message) for d in ds]

    assert key(edited) == key(fresh)
    # And the server's text is the client's: a full-text hover round trip agrees.
    tokens = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    fresh_tokens = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=fresh_uri))
    )
    assert tokens.data == fresh_tokens.data


async def test_requests_during_edits_answer_or_report_content_modified(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    doc = types.TextDocumentIdentifier(uri=uri)
    pending = []
    for v in range(2, 60):
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=v),
                content_changes=[types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
                    text="-- x\n")],
            )
        )
        pending.append(client.text_document_completion_async(types.CompletionParams(text_document=doc, position=types.Position(line=v, character=2))))
    results = await asyncio.gather(*pending, return_exceptions=True)
    for r in results:
        if isinstance(r, Exception):
            assert "-32801" in str(r) or "ContentModified" in str(r) or "modified" in str(r).lower(), r


async def test_untitled_buffers(client, workspace):
    uri = "untitled:Untitled-1"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="futhark", version=1, text="def x = (1 +\n")
        )
    )
    diags = await diagnostics_for(client, uri, version=1)
    assert diags and diags[0].code == "syntax-error"
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=4))
    )
    assert hover is not None and "def x" in hover.contents.value
