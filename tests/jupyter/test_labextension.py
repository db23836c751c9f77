"""The JupyterLab extension that highlights Futhark (editors/jupyterlab): the committed
build matches its sources, `futhark-jupyter install` installed it where JupyterLab looks
(run.sh installed into JUPYTER_DATA_DIR), and the kernel names its mode."""

import os
import pathlib
import runpy
import subprocess
import sys

import pytest
from jupyter_client.manager import start_new_kernel

from conftest import REPO

EXTENSION = REPO / "editors" / "jupyterlab"


def test_the_prebuilt_extension_was_built_from_the_current_sources():
    source_hash = runpy.run_path(str(EXTENSION / "source_hash.py"))["source_hash"]
    recorded = (EXTENSION / "prebuilt" / "SOURCE_HASH").read_text().strip()
    assert recorded == source_hash(), "editors/jupyterlab changed: run editors/jupyterlab/build.sh"


def test_install_wrote_the_extension_into_the_data_dir():
    installed = pathlib.Path(os.environ["JUPYTER_DATA_DIR"]) / "labextensions" / "jupyterlab-futhark"
    prebuilt = EXTENSION / "prebuilt"
    for f in prebuilt.rglob("*"):
        if f.is_file() and f.name != "SOURCE_HASH":
            assert (installed / f.relative_to(prebuilt)).read_bytes() == f.read_bytes(), f


def test_jupyterlab_lists_the_extension_as_enabled():
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        pytest.skip("jupyterlab is not installed (tests/jupyter/requirements-browser.txt)")
    out = subprocess.run(
        [sys.executable, "-m", "jupyterlab.labextensions", "list"],
        capture_output=True, text=True, timeout=120,
    )
    text = out.stdout + out.stderr
    line = next((l for l in text.splitlines() if "jupyterlab-futhark" in l), "")
    assert "enabled" in line and "OK" in line, text


def test_the_kernel_names_the_futhark_mode():
    km, kc = start_new_kernel(kernel_name="futhark")
    try:
        msg_id = kc.kernel_info()
        while True:
            reply = kc.get_shell_msg(timeout=30)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        info = reply["content"]["language_info"]
        assert info["codemirror_mode"] == "futhark"
        assert info["mimetype"] == "text/x-futhark"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
