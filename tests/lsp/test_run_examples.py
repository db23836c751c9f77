"""End-to-end tests of the "▶ Run" code lens on `-- >>> expr` comments: where the lenses
are, and what running one (workspace/executeCommand) gives: the value and its type, the
error of a bad example, a time-out for one that loops."""

import asyncio
import pathlib
import sys
import time

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from conftest import server_path  # noqa: E402
from lsp_util import diagnostics_for, open_doc  # noqa: E402

# The time limit the `quick` client asks for (the default is 10 s).
QUICK_LIMIT_MS = 1500

EXAMPLES = """import "lib/util"

-- | Sums the squares.
-- >>> sumsq [1, 2, 3]
-- 14
def sumsq (xs: []i32) : i32 = reduce (+) 0 (map (\\x -> x * x) xs)

-- >>> sumsq (map i32.i64 (iota 3))
-- >>> double (sumsq [2])
-- 9
--
-- >>> spin 1
def spin (n: i64) : i64 = loop i = n while i > 0 do i + 1

  -- >>>   [sumsq [1], double 21]
-- >> not an example
"""

# The 0-based lines of the `-- >>>` comments above, with their expressions.
EXAMPLE_LINES = {
    3: "sumsq [1, 2, 3]",
    7: "sumsq (map i32.i64 (iota 3))",
    8: "double (sumsq [2])",
    11: "spin 1",
    14: "[sumsq [1], double 21]",
}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[server_path()]))
async def quick(lsp_client: LanguageClient, workspace: pathlib.Path):
    """A client whose server stops examples after QUICK_LIMIT_MS."""
    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        initialization_options={"runTimeoutMs": QUICK_LIMIT_MS},
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


async def lenses_of(client, uri):
    return await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


async def run(client, *arguments):
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="futhark.runExample", arguments=list(arguments))
    )


def examples_doc(client, workspace) -> str:
    path = workspace / "examples.fut"
    path.write_text(EXAMPLES)
    return open_doc(client, path)


async def test_lenses_sit_on_the_example_lines(client, workspace):
    uri = examples_doc(client, workspace)
    lenses = await lenses_of(client, uri)
    found = {l.range.start.line: l.command.arguments[1] for l in lenses}
    assert found == EXAMPLE_LINES
    assert all(l.command.command == "futhark.runExample" and l.command.title == "▶ Run" for l in lenses)
    assert all(l.command.arguments[0] == uri for l in lenses)
    # The range covers the comment, from `--` (after the indentation) to its end.
    last = next(l for l in lenses if l.range.start.line == 14)
    assert (last.range.start.character, last.range.end.character) == (2, len("  -- >>>   [sumsq [1], double 21]"))
    assert "futhark.runExample" in client.server_capabilities.execute_command_provider.commands


async def test_running_an_example_gives_its_value_and_type(client, workspace):
    uri = examples_doc(client, workspace)
    result = await run(client, uri, "sumsq [1, 2, 3]")
    assert (result["status"], result["value"], result["type"]) == ("value", "14", "i32"), result
    assert result["expected"] == "14" and result["matches"] is True
    # By line: the expression of the example there, with its imports (`double`) in scope.
    result = await run(client, uri, 8)
    assert (result["value"], result["type"]) == ("8", "i32"), result
    assert result["expected"] == "9" and result["matches"] is False
    assert "expected 9" in result["headline"]
    result = await run(client, uri, 14)
    assert (result["value"], result["type"]) == ("[1, 42]", "[2]i32"), result
    # The server also says it (the VS Code extension turns that off and shows it itself).
    assert any("14" in m.message for m in client.messages)


async def test_the_unsaved_buffer_is_what_runs(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    assert (await run(client, uri, "quad 3"))["value"] == "18"
    # `double y` becomes `double y + 1` in the editor only.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(line=6, character=13), end=types.Position(line=6, character=13)),
                    text=" + 1",
                )
            ],
        )
    )
    await diagnostics_for(client, uri, version=2)
    assert (await run(client, uri, "quad 3"))["value"] == "19"


async def test_an_example_with_a_type_error_reports_it(client, workspace):
    uri = examples_doc(client, workspace)
    result = await run(client, uri, "sumsq true")
    assert result["status"] == "error" and result["errorKind"] == "TypeError", result
    assert result["value"] is None and result["error"]
    # A run-time error too, located in the file (under its own path).
    result = await run(client, uri, "[1, 2][sumsq [3]]")
    assert result["status"] == "error" and result["errorKind"] == "RuntimeError", result
    assert "futhark-lsp-run" not in result["message"]
    # The server is still there.
    lenses = await lenses_of(client, uri)
    assert len(lenses) == len(EXAMPLE_LINES)


async def test_bad_arguments_are_rejected(client, workspace):
    uri = examples_doc(client, workspace)
    for arguments in ([uri], [uri, 5], [uri, {"line": 3}], ["not a uri", "1"]):
        try:
            await run(client, *arguments)
        except Exception as e:  # pygls raises the JSON-RPC error
            assert "example" in str(e) or "URI" in str(e) or "document" in str(e), e
        else:
            raise AssertionError(f"{arguments} was accepted")


async def test_a_looping_example_is_stopped_at_the_time_limit(quick, workspace):
    client = quick
    uri = examples_doc(client, workspace)
    t0 = time.perf_counter()
    result = await run(client, uri, 11)
    elapsed = time.perf_counter() - t0
    assert result["status"] == "timeout", result
    assert QUICK_LIMIT_MS / 1000 <= elapsed < QUICK_LIMIT_MS / 1000 + 8, elapsed
    # The server goes on answering, and the next example runs normally.
    result = await run(client, uri, "sumsq (map i32.i64 (iota 3))")
    assert result["value"] == "5", result


async def wait_for_refresh(client, seen: int):
    """Waits until the server has asked for the lenses again more than `seen` times."""
    for _ in range(100):
        if client.__dict__.get("lens_refreshes", 0) > seen:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the server did not ask the client to refresh its code lenses")


async def test_the_lens_shows_the_result_after_running(quick, workspace):
    client = quick
    uri = examples_doc(client, workspace)
    await run(client, uri, "sumsq [1, 2, 3]")
    await wait_for_refresh(client, 0)
    titles = {l.range.start.line: l.command.title for l in await lenses_of(client, uri)}
    assert titles[3] == "▶ Run  ⇒ 14 : i32  ✓", titles
    assert titles[7] == "▶ Run"
    # An edit makes the result stale: the server asks for the lenses again, and the title
    # goes back.
    before = client.__dict__["lens_refreshes"]
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=EXAMPLES + "\n")],
        )
    )
    await diagnostics_for(client, uri, version=2)
    await wait_for_refresh(client, before)
    titles = {l.range.start.line: l.command.title for l in await lenses_of(client, uri)}
    assert titles[3] == "▶ Run", titles
