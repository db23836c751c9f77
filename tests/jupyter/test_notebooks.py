"""Runs every notebook in examples/ with nbclient on the installed futhark kernel and checks
that it executes without errors and shows the outputs the notebooks promise."""

import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

REPO = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "examples").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path):
    nb = nbformat.read(path, as_version=4)
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
