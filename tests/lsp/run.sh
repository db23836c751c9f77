#!/usr/bin/env bash
# End-to-end tests of futhark-lsp through a real LSP client (pytest-lsp): installs the
# Python dependencies, builds the server in release mode and runs pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -m pip install --quiet --disable-pip-version-check -r tests/lsp/requirements.txt
cargo build --release --locked -p futhark-lsp
export FUTHARK_LSP="${CARGO_TARGET_DIR:-$PWD/target}/release/futhark-lsp"
exec python3 -m pytest -c tests/lsp/pytest.ini --rootdir tests/lsp -q tests/lsp "$@"
