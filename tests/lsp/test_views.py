"""The IR and CUDA views (`futhark/showIR`, `futhark/showCuda`): per definition under the
cursor, the whole program outside definitions, and a reason when nothing can be shown. On
the small workspace fixture always, and on benchmark programs when ../shared is present."""

import pathlib

import pytest
from lsprotocol import types

from lsp_util import MAIN, open_doc, position_of

SHARED = pathlib.Path(__file__).resolve().parents[2].parent / "shared"
MANDELBROT = SHARED / "benchmarks" / "accelerate" / "mandelbrot" / "mandelbrot.fut"
STAGES = ["soacs", "fused", "kernels"]


async def show(client, method, uri, position=None, stage=None):
    params = {"textDocument": {"uri": uri}}
    if position is not None:
        params["position"] = {"line": position.line, "character": position.character}
    if stage is not None:
        params["stage"] = stage
    return await client.protocol.send_request_async(method, params)


def shown_def(result):
    return result.definition


@pytest.mark.parametrize("stage", STAGES)
async def test_show_ir_of_the_entry_under_the_cursor(client, workspace, stage):
    uri = open_doc(client, workspace / "main.fut")
    result = await show(client, "futhark/showIR", uri, position_of(MAIN, "f32.sqrt v"), stage)
    assert result.available is True, result.text
    assert result.language == "futhark-ir"
    assert result.stage == stage
    assert shown_def(result) == "main"
    assert result.text.startswith(f"-- {stage} IR of `main`")
    assert "entry entry_main_" in result.text
    if stage == "kernels":
        assert "-- kernel program entry_main_" in result.text
        assert "segmap" in result.text
    else:
        assert "kernel program" not in result.text


async def test_show_ir_core_is_soacs_and_whole_program_outside_defs(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    core = await show(client, "futhark/showIR", uri, position_of(MAIN, 'import "lib'), "core")
    assert core.available is True, core.text
    assert core.stage == "soacs"
    assert shown_def(core) is None
    assert core.text.startswith("-- soacs IR of the whole program")
    assert "(the cursor is not in a definition)" in core.text
    bare = await show(client, "futhark/showIR", uri)
    assert bare.available is True and shown_def(bare) is None
    assert "(the cursor is not in a definition)" not in bare.text


async def test_show_ir_says_why_a_definition_has_none(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    result = await show(client, "futhark/showIR", uri, position_of(MAIN, "x * x"), "fused")
    assert result.available is False
    assert shown_def(result) == "quad"
    assert "not reachable from an entry point" in result.text


async def test_show_ir_rejects_an_unknown_stage(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    with pytest.raises(Exception, match="stage must be one of"):
        await show(client, "futhark/showIR", uri, None, "llvm")


async def test_show_ir_reports_type_errors_with_locations(client, workspace):
    path = workspace / "bad.fut"
    text = "entry main (x: i32) : i32 =\n  x + true\n"
    path.write_text(text)
    uri = open_doc(client, path)
    result = await show(client, "futhark/showIR", uri, position_of(text, "true"), "soacs")
    assert result.available is False
    assert result.text.startswith("the program has errors")
    assert "bad.fut:2:" in result.text


async def test_show_cuda_of_the_entry_under_the_cursor(client, workspace):
    uri = open_doc(client, workspace / "main.fut")
    result = await show(client, "futhark/showCuda", uri, position_of(MAIN, "f32.sqrt v"))
    assert result.available is True, result.text
    assert result.language == "cuda"
    assert result.stage is None
    assert result.text.startswith("// CUDA kernels run by `main`")
    assert "launched by entry_main_" in result.text
    assert '__global__' in result.text


async def test_show_cuda_follows_edits(client, workspace):
    path = workspace / "main.fut"
    uri = open_doc(client, path)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="entry main (x: i32) : i32 = x + 1\n")],
        )
    )
    result = await show(client, "futhark/showCuda", uri)
    assert result.available is False
    assert "no kernels" in result.text


needs_shared = pytest.mark.skipif(not MANDELBROT.is_file(), reason="../shared/benchmarks is absent")


@needs_shared
@pytest.mark.parametrize("stage", STAGES)
async def test_show_ir_of_mandelbrot(client, stage):
    text = MANDELBROT.read_text()
    uri = open_doc(client, MANDELBROT)
    result = await show(client, "futhark/showIR", uri, position_of(text, "render_mandelbrot"), stage)
    assert result.available is True, result.text
    assert shown_def(result) == "main"
    assert "entry entry_main_" in result.text
    assert ("launch " in result.text) == (stage == "kernels")


@needs_shared
async def test_show_cuda_of_mandelbrot(client):
    text = MANDELBROT.read_text()
    uri = open_doc(client, MANDELBROT)
    result = await show(client, "futhark/showCuda", uri, position_of(text, "render_mandelbrot"))
    assert result.available is True, result.text
    assert result.text.count("// kernel ") >= 1
    assert "extern \"C\" __global__" in result.text
    whole = await show(client, "futhark/showCuda", uri)
    assert whole.available is True
    assert whole.text.startswith("// CUDA kernels of the whole program")


async def test_show_cuda_explains_an_unsupported_construct(client, workspace):
    # A sum type as an entry point input is outside the GPU path (the kernels it supports
    # grow; this does not change with them).
    path = workspace / "sum.fut"
    path.write_text("entry main (x: #a | #b) : i32 = match x case #a -> 1 case #b -> 2\n")
    uri = open_doc(client, path)
    result = await show(client, "futhark/showCuda", uri)
    assert result.available is False, result.text
    assert "not supported by the GPU path yet" in result.text
    assert "sum types" in result.text
