"""Helpers shared by the tests and the latency benchmark: fixture sources, opening
documents, waiting for diagnostics of a given version, UTF-16 aware positions."""

import asyncio
import pathlib

import pytest_lsp.client
from lsprotocol import types

UTIL = """-- | Doubles an integer.
def double (x: i32) : i32 = x * 2

module Vec = {
  -- | The length of a vector.
  def norm (v: [3]f32) : f32 = f32.sqrt (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
}
"""

MAIN = """import "lib/util"

-- | Squares, then doubles.
-- >>> quad 3
def quad (x: i32) : i32 =
  let y = x * x
  in double y

entry main (xs: []f32) : []f32 =
  map (\\v -> f32.sqrt v) xs

def lengths (vs: [][3]f32) = map Vec.norm vs
"""


def position_of(text: str, needle: str, occurrence: int = 0, offset: int = 0) -> types.Position:
    """The LSP position (UTF-16 columns) of the `occurrence`-th `needle`, plus `offset`
    characters."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(needle, start + 1)
    index = start + offset
    line = text.count("\n", 0, index)
    line_start = text.rfind("\n", 0, index) + 1
    col = len(text[line_start:index].encode("utf-16-le")) // 2
    return types.Position(line=line, character=col)


def open_doc(client, path: pathlib.Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="futhark",
                version=version,
                text=path.read_text() if text is None else text,
            )
        )
    )
    return uri


def _record_diagnostics(client: pytest_lsp.client.LanguageClient, params: types.PublishDiagnosticsParams):
    """Replaces pytest-lsp's handler: also remembers the version of each publication, so a
    test can wait for the diagnostics of one exact edit without racing notifications."""
    client.diagnostics[params.uri] = params.diagnostics
    counts = client.__dict__.setdefault("publish_counts", {})
    counts[params.uri] = counts.get(params.uri, 0) + 1
    client.__dict__.setdefault("published", {})[params.uri] = (params.version, list(params.diagnostics))
    client.__dict__.setdefault("versions_published", {}).setdefault(params.uri, []).append(params.version)
    client.__dict__.setdefault("diag_event", asyncio.Event()).set()


pytest_lsp.client.DEFAULT_CLIENT_FEATURES[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _record_diagnostics


def _count_lens_refresh(client: pytest_lsp.client.LanguageClient, params: None):
    """Answers workspace/codeLens/refresh (the VS Code capabilities announce it), counting."""
    client.__dict__["lens_refreshes"] = client.__dict__.get("lens_refreshes", 0) + 1


pytest_lsp.client.DEFAULT_CLIENT_FEATURES[types.WORKSPACE_CODE_LENS_REFRESH] = _count_lens_refresh


def _record_registration(client: pytest_lsp.client.LanguageClient, params: types.RegistrationParams):
    """Answers client/registerCapability, remembering what the server registered."""
    client.__dict__.setdefault("registrations", []).extend(params.registrations)


pytest_lsp.client.DEFAULT_CLIENT_FEATURES[types.CLIENT_REGISTER_CAPABILITY] = _record_registration


async def diagnostics_for(client, uri: str, version: int, timeout: float = 20.0, until=None):
    """Waits until diagnostics for `uri` at `version` have been published (and satisfy
    `until`, if given); returns them. The server publishes each version twice at most:
    syntax first, then with fresh type diagnostics."""

    async def wait():
        event = client.__dict__.setdefault("diag_event", asyncio.Event())
        while True:
            event.clear()
            published = client.__dict__.get("published", {}).get(uri)
            if published is not None and published[0] == version and (until is None or until(published[1])):
                return published[1]
            await event.wait()

    return await asyncio.wait_for(wait(), timeout)


async def settled_diagnostics(client, uri: str, version: int, quiet: float = 0.5, timeout: float = 30.0):
    """The diagnostics of `uri` at `version` once the server has stopped publishing for a
    while (after the type checker's second publication)."""
    await diagnostics_for(client, uri, version, timeout)
    counts = client.__dict__.setdefault("publish_counts", {})
    while True:
        seen = counts.get(uri, 0)
        await asyncio.sleep(quiet)
        if counts.get(uri, 0) == seen:
            return client.published[uri][1]


def apply_utf16_edit(text: str, start: types.Position, end: types.Position, new: str) -> str:
    """Applies an LSP edit to a Python string, counting columns in UTF-16 units."""

    def offset(pos: types.Position) -> int:
        lines = text.split("\n")
        if pos.line >= len(lines):
            return len(text)
        base = sum(len(l) + 1 for l in lines[: pos.line])
        units = 0
        for i, ch in enumerate(lines[pos.line]):
            width = 2 if ord(ch) > 0xFFFF else 1
            # Like the server: a column inside a surrogate pair means that character.
            if units >= pos.character or units + width > pos.character:
                return base + i
            units += width
        return base + len(lines[pos.line])

    a, b = sorted((offset(start), offset(end)))
    return text[:a] + new + text[b:]
