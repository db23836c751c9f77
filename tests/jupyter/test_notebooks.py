"""Runs every notebook in examples/ with nbclient on the installed futhark kernel and checks
that it executes without errors and shows the outputs the notebooks promise."""

import os
import pathlib
import subprocess

import nbformat
import pytest
from nbclient import NotebookClient

REPO = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "examples").glob("*.ipynb"))


def with_ci_parameters(nb):
    """Replaces the cell tagged `parameters` by the notebook's `futhark.ci_parameters`
    (a size the interpreter runs quickly), as papermill does with parameters."""
    params = nb.metadata.get("futhark", {}).get("ci_parameters")
    if params is not None:
        for c in nb.cells:
            if "parameters" in c.metadata.get("tags", []):
                c.source = params
    return nb


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path):
    nb = with_ci_parameters(nbformat.read(path, as_version=4))
    client = NotebookClient(nb, kernel_name="futhark", timeout=120,
                            resources={"metadata": {"path": str(REPO / "examples")}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code"
              if "raises-exception" not in c.metadata.get("tags", [])
              for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, errors


def test_intro_shows_values_images_and_plots():
    path = REPO / "examples" / "intro.ipynb"
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, kernel_name="futhark", timeout=120).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    results = [o for o in outputs if o.output_type == "execute_result"]
    assert any(o.data["text/plain"] == "30.0f64" for o in results)
    assert any("<table" in o.data.get("text/html", "") for o in results)
    pictures = [o for o in outputs if o.output_type == "display_data"
                and "image/png" in o.data]
    assert len(pictures) == 2
    errors = [o for o in outputs if o.output_type == "error"]
    assert len(errors) == 1 and errors[0].ename == "TypeError"


def test_multi_gpu_compares_one_gpu_with_two():
    path = REPO / "examples" / "multi-gpu.ipynb"
    nb = with_ci_parameters(nbformat.read(path, as_version=4))
    NotebookClient(nb, kernel_name="futhark", timeout=120,
                   resources={"metadata": {"path": str(REPO / "examples")}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    results = [o for o in outputs if o.output_type == "execute_result"]
    # The same total with one GPU and with two (four runs: a warm-up on 1 and on 2 GPUs,
    # then the timed runs).
    totals = {o.data["text/plain"] for o in results}
    assert len(results) == 4 and len(totals) == 1, results
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "speedup" in text and "GPUs requested: 2" in text, text


def test_run_subcommand_writes_outputs(tmp_path):
    """`futhark-jupyter run` executes a notebook through the kernel's execute path: the
    outputs it writes are the ones nbclient gets from the kernel."""
    exe = os.environ.get("FUTHARK_JUPYTER", str(REPO / "target" / "release" / "futhark-jupyter"))
    src = with_ci_parameters(nbformat.read(REPO / "examples" / "multi-gpu.ipynb", as_version=4))
    for c in src.cells:
        if c.cell_type == "code":
            c.outputs = []
    nb_in = tmp_path / "multi-gpu.ipynb"
    nbformat.write(src, nb_in)
    (tmp_path / "mandelbrot.fut").write_text((REPO / "examples" / "mandelbrot.fut").read_text())
    out = tmp_path / "out.ipynb"
    subprocess.run([exe, "run", str(nb_in), "--output", str(out), "--backend", "interp"],
                   check=True, env=dict(os.environ, FUTHARK_NO_GPU="1"))
    ran = nbformat.read(out, as_version=4)
    nbformat.validate(ran)
    by_runner = [o.data["text/plain"] for c in ran.cells if c.cell_type == "code"
                 for o in c.outputs if o.output_type == "execute_result"]
    fresh = with_ci_parameters(nbformat.read(REPO / "examples" / "multi-gpu.ipynb", as_version=4))
    NotebookClient(fresh, kernel_name="futhark", timeout=120,
                   resources={"metadata": {"path": str(REPO / "examples")}}).execute()
    by_kernel = [o.data["text/plain"] for c in fresh.cells if c.cell_type == "code"
                 for o in c.outputs if o.output_type == "execute_result"]
    assert by_runner == by_kernel and len(by_runner) == 4
    assert all(c.execution_count for c in ran.cells if c.cell_type == "code")
