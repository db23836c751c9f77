"""Shared setup for the futhark-jupyter tests: the kernelspec must be installed (run.sh
installs it into a temporary JUPYTER_DATA_DIR) and the examples live in the repository."""

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
KERNEL_NAME = "futhark"


def pytest_configure(config):
    if "JUPYTER_DATA_DIR" not in os.environ:
        raise pytest.UsageError(
            "JUPYTER_DATA_DIR is not set: run tests/jupyter/run.sh, which installs the kernelspec"
        )
