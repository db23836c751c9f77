"""Latency of futhark-lsp as an editor sees it: after an edit inside a 2000-line file, the
time until diagnostics for that version are published, and the time of a hover and of a
completion request at the edited place. Medians (and 95th percentiles) over many edits
are written to bench/results/lsp-latency.md, for two 2000-line programs: one with a small
module in every block (the program of the first measurement) and the same code with the
module members as top-level definitions. Besides wall-clock times it reports the CPU time
the server spent per edit, which does not depend on how busy the machine is.

Usage: python3 tests/lsp/bench_latency.py [--edits N] [--server PATH] [--out FILE]
"""

import argparse
import asyncio
import os
import pathlib
import platform
import statistics
import sys
import tempfile
import time

from lsprotocol import types
from pytest_lsp import client_capabilities
from pytest_lsp.client import make_test_lsp_client

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from conftest import REPO, server_path  # noqa: E402
from lsp_util import diagnostics_for, open_doc  # noqa: E402

BLOCK = """-- | Block {i}: a scaled sum of squares.
def sumsq_{i} [n] (xs: [n]f32) : f32 =
  let sq = map (\\x -> x * x) xs
  let total = reduce (+) 0f32 sq
  in total * f32.i64 n

module M{i} = {{
  def scale (k: f32) (x: f32) : f32 = k * x
  def shift (k: f32) (x: f32) : f32 = x + k
}}

def step_{i} (acc: f32) (k: i32) : f32 =
  let twice = M{i}.scale 2f32 acc
  let moved = M{i}.shift (f32.i32 k) twice
  in if moved > 100f32 then moved / 2f32 else moved

entry run_{i} (xs: []f32) : f32 =
  loop acc = sumsq_{i} xs for k < 10 do step_{i} acc k

"""


# The same block with the module's members as top-level definitions.
FLAT_BLOCK = (
    BLOCK.replace(
        "module M{i} = {{\n  def scale (k: f32) (x: f32) : f32 = k * x\n  def shift (k: f32) (x: f32) : f32 = x + k\n}}\n",
        "def scale_{i} (k: f32) (x: f32) : f32 = k * x\ndef shift_{i} (k: f32) (x: f32) : f32 = x + k\n",
    )
    .replace("M{i}.scale", "scale_{i}")
    .replace("M{i}.shift", "shift_{i}")
)
assert "module" not in FLAT_BLOCK

PROGRAMS = {"modules": BLOCK, "flat": FLAT_BLOCK}


def program(lines: int, block: str = BLOCK) -> str:
    out, i = [], 0
    while sum(s.count("\n") for s in out) < lines:
        out.append(block.format(i=i))
        i += 1
    return "".join(out)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process `pid` (all its threads), from /proc."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def measure(server: str, edits: int, block: str):
    text = program(2000, block)
    lines = text.split("\n")
    # The edited line: `  in total * f32.i64 n` of a block in the middle.
    target = next(i for i in range(len(lines) // 2, len(lines)) if lines[i] == "  in total * f32.i64 n")
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "big.fut"
        path.write_text(text)
        client = make_test_lsp_client()
        await client.start_io(server)
        await client.initialize_session(
            types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), root_uri=pathlib.Path(tmp).as_uri())
        )
        uri = open_doc(client, path, text)
        await diagnostics_for(client, uri, version=1, timeout=60)
        doc = types.TextDocumentIdentifier(uri=uri)
        pid = client._server.pid
        syntax_ms, full_ms, hover_fast_ms, hover_ms, completion_ms = [], [], [], [], []
        cpu_ms = 0.0
        word = "total"
        for k in range(edits):
            version = k + 2
            # Alternate between a type error (`true * …`) and the valid program, so that the
            # checker's verdict changes with every edit and its publication is recognisable.
            broken = k % 2 == 0
            new = "true" if broken else "total"
            start = types.Position(line=target, character=len("  in "))
            end = types.Position(line=target, character=len("  in ") + len(word))
            cpu0 = cpu_seconds(pid)
            t0 = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end), text=new)],
                )
            )
            word = new
            await diagnostics_for(client, uri, version=version, timeout=60)
            syntax_ms.append((time.perf_counter() - t0) * 1000)
            # Hover while the check may still run: answers without waiting for it.
            pos = types.Position(line=target - 2, character=len("  let sq = ma"))
            t1 = time.perf_counter()
            h = await client.text_document_hover_async(types.HoverParams(text_document=doc, position=pos))
            hover_fast_ms.append((time.perf_counter() - t1) * 1000)
            assert h is not None, "hover on map answers"

            def checked(diags, broken=broken):
                return any(d.severity == types.DiagnosticSeverity.Error for d in diags) == broken

            await diagnostics_for(client, uri, version=version, timeout=60, until=checked)
            full_ms.append((time.perf_counter() - t0) * 1000)
            cpu_ms += (cpu_seconds(pid) - cpu0) * 1000
            t1 = time.perf_counter()
            h = await client.text_document_hover_async(types.HoverParams(text_document=doc, position=pos))
            hover_ms.append((time.perf_counter() - t1) * 1000)
            assert h is not None and "->" in h.contents.value, "hover with the inferred type"
            pos = types.Position(line=target, character=len("  in ") + len(word) + len(" * f32."))
            t1 = time.perf_counter()
            c = await client.text_document_completion_async(types.CompletionParams(text_document=doc, position=pos))
            completion_ms.append((time.perf_counter() - t1) * 1000)
            items = c if isinstance(c, list) else c.items
            assert any(i.label == "sqrt" for i in items), "completion after f32. answers"
        await client.shutdown_session()
        await client.stop()
    return len(lines), syntax_ms, full_ms, hover_fast_ms, hover_ms, completion_ms, cpu_ms / edits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--edits", type=int, default=60)
    ap.add_argument("--server", default=server_path())
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "lsp-latency.md"))
    args = ap.parse_args()
    load_before = os.getloadavg()
    rows, cpu_rows, nlines = [], [], {}
    for name, block in PROGRAMS.items():
        n, syntax, full, hover_fast, hover, comp, cpu = asyncio.run(measure(args.server, args.edits, block))
        nlines[name] = n
        measured = [
            ("diagnostics published (syntax, first publication)", syntax, 50),
            ("diagnostics with fresh type errors (after the check)", full, 50),
            ("hover right after the edit (no waiting for the check)", hover_fast, 20),
            ("hover with the inferred type (check done)", hover, 20),
            ("completion after `f32.`", comp, 30),
        ]
        for what, xs, target in measured:
            med = statistics.median(xs)
            verdict = "yes" if med < target else "NO"
            rows.append(f"| {name} | {what} | {med:.1f} | {pct(xs, 95):.1f} | {max(xs):.1f} | < {target} | {verdict} |")
            print(f"{name}: {what}: median {med:.1f} ms, p95 {pct(xs, 95):.1f} ms, max {max(xs):.1f} ms")
        cpu_rows.append(f"| {name} | {cpu:.1f} |")
        print(f"{name}: server CPU per edit until the checked publication: {cpu:.1f} ms")
    load_after = os.getloadavg()
    report = f"""# futhark-lsp latency

Command: `python3 tests/lsp/bench_latency.py --edits {args.edits}` (release build of
`futhark-lsp`; `tests/lsp/run.sh` builds it).

Measured by `tests/lsp/bench_latency.py` through a real LSP client (pytest-lsp/pygls over
stdio). A 2000-line file is opened ({nlines["modules"]} lines `modules`: blocks of a function,
a two-function module, a function using it and an entry point, the program of the first
measurement; {nlines["flat"]} lines `flat`: the same with the module's members as top-level
definitions). Then {args.edits} times an edit is made inside a function body in the middle
(alternately introducing and removing a type error) and we time: from sending `didChange`
until `publishDiagnostics` for that version arrives (the server publishes syntax
diagnostics at once, with the previous type errors moved through the edit), and until the
publication with the checker's verdict on the new text; a hover right after the first
publication; a hover once the check is done (it shows the inferred type); a completion
after `f32.`. Release build; client and server on one machine ({platform.machine()},
{os.cpu_count()} CPUs), load average {load_before[0]:.1f} before and {load_after[0]:.1f} after.

| program | measurement | median (ms) | p95 (ms) | max (ms) | target (ms) | median meets target |
|---|---|---|---|---|---|---|
""" + "\n".join(rows) + """

CPU time of the server process (all threads) per edit, from `didChange` until the checked
publication (including the hover made in between), mean over the edits; unlike the
wall-clock times it does not grow when other processes compete for the CPUs:

| program | server CPU per edit (ms) |
|---|---|
""" + "\n".join(cpu_rows) + "\n"
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.out).write_text(report)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
