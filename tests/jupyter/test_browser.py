"""A notebook in JupyterLab under a real browser (issue 29): Debian's chromium, driven by
Playwright through `executable_path` (no browser download), opens a notebook with the
Futhark kernel, runs its cells and checks what the page shows: an HTML table, a PNG
image, and the Futhark highlighting of the JupyterLab extension that
`futhark-jupyter install` installed. The screenshot is kept under
target/jupyter-browser/ as a test artefact.

Skips (saying why) when chromium, jupyterlab or playwright is missing; tests/jupyter/run.sh
installs them (apt `chromium`, requirements-browser.txt)."""

import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import uuid

import pytest

from conftest import REPO

CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]

NOTEBOOK = {
    "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": "def sq (x: i32) = x * x\n[[sq 1, sq 2], [sq 3, sq 4]]"},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": "%img map (\\i -> map (\\j -> u32.i64 (i * 16 + j) * 1000) (iota 16)) (iota 8)"},
    ],
    "metadata": {
        "kernelspec": {"name": "futhark", "display_name": "Futhark", "language": "futhark"},
        "language_info": {"name": "futhark"},
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}


def chromium():
    for path in [shutil.which("chromium"), *CHROMIUM_CANDIDATES]:
        if path and os.access(path, os.X_OK):
            return path
    return None


def artefacts() -> pathlib.Path:
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    out = target / "jupyter-browser"
    out.mkdir(parents=True, exist_ok=True)
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server over a folder holding the notebook; yields its URL."""
    browser = chromium()
    if browser is None:
        pytest.skip("no chromium (apt package `chromium`): the browser test needs it")
    try:
        import jupyterlab  # noqa: F401
        import playwright  # noqa: F401
    except ImportError as e:
        pytest.skip(f"{e.name} is not installed (tests/jupyter/requirements-browser.txt)")
    (tmp_path / "nb").mkdir()
    (tmp_path / "nb" / "browser.ipynb").write_text(json.dumps(NOTEBOOK))
    port, token = free_port(), uuid.uuid4().hex
    env = dict(os.environ)
    env["JUPYTER_CONFIG_DIR"] = str(tmp_path / "config")
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "runtime")
    # JupyterLab keeps workspaces and settings under the user's home otherwise.
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(tmp_path / "workspaces")
    env["JUPYTERLAB_SETTINGS_DIR"] = str(tmp_path / "settings")
    # No "would you like news?" toast over the screenshot.
    notes = tmp_path / "settings" / "@jupyterlab" / "apputils-extension"
    notes.mkdir(parents=True)
    (notes / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    log = open(tmp_path / "lab.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", "--allow-root", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={tmp_path / 'nb'}", "--LabApp.expose_app_in_browser=True",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.time() > deadline:
                    log.flush()
                    pytest.fail("JupyterLab did not start:\n" + (tmp_path / "lab.log").read_text())
                time.sleep(0.3)
        yield browser, f"{url}/lab/tree/browser.ipynb?token={token}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def test_a_notebook_runs_in_jupyterlab_under_chromium(lab):
    from playwright.sync_api import sync_playwright

    browser_path, url = lab
    shot = artefacts() / "notebook.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(url)
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
            page.wait_for_function("() => window.jupyterapp !== undefined", timeout=30_000)
            # The Futhark language of the extension is active, and the cell's `def` is
            # highlighted as a keyword (plain text would leave it unstyled).
            assert page.evaluate(
                "() => window.jupyterapp.isPluginActivated('jupyterlab-futhark:language')"
            )
            page.wait_for_selector(".jp-Notebook .cm-content span", timeout=30_000)
            styled = page.evaluate(
                """() => {
                    const line = document.querySelector('.jp-Notebook .cm-content .cm-line');
                    const def = [...line.querySelectorAll('span')].find(s => s.textContent === 'def');
                    if (!def) return null;
                    return [getComputedStyle(def).color, getComputedStyle(line).color];
                }"""
            )
            assert styled is not None and styled[0] != styled[1], styled
            # Run every cell once the kernel is ready.
            page.wait_for_function(
                """() => {
                    const w = window.jupyterapp.shell.currentWidget;
                    const k = w && w.sessionContext && w.sessionContext.session
                        && w.sessionContext.session.kernel;
                    return k && k.status === 'idle';
                }""",
                timeout=60_000,
            )
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            table = page.wait_for_selector(".jp-OutputArea-output table", timeout=60_000)
            img = page.wait_for_selector(".jp-OutputArea-output img", timeout=60_000)
            page.wait_for_function(
                "(img) => img.complete && img.naturalWidth > 0", arg=img, timeout=30_000
            )
            page.screenshot(path=str(shot), full_page=True)
            cells = [c.inner_text().strip() for c in table.query_selector_all("td")]
            assert cells == ["1", "4", "9", "16"], cells
            assert img.get_attribute("src").startswith("data:image/png;base64,")
            assert img.evaluate("(i) => [i.naturalWidth, i.naturalHeight]") == [16, 8]
        finally:
            browser.close()
    assert shot.stat().st_size > 0
