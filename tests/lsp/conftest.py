"""Shared fixtures for the futhark-lsp end-to-end tests: the server binary, a small
workspace on disk with imports, and an initialised pytest-lsp client."""

import os
import pathlib
import shutil
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from lsp_util import MAIN, UTIL  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]


def server_path() -> str:
    """The server binary: $FUTHARK_LSP, or the release build of this checkout."""
    if "FUTHARK_LSP" in os.environ:
        return os.environ["FUTHARK_LSP"]
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return str(target / "release" / "futhark-lsp")


@pytest.fixture
def workspace(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "lib").mkdir()
    (tmp_path / "main.fut").write_text(MAIN)
    (tmp_path / "lib" / "util.fut").write_text(UTIL)
    yield tmp_path
    shutil.rmtree(tmp_path, ignore_errors=True)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[server_path()]))
async def client(lsp_client: LanguageClient, workspace: pathlib.Path):
    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
    )
    result = await lsp_client.initialize_session(params)
    lsp_client.server_capabilities = result.capabilities
    yield
    await lsp_client.shutdown_session()
