#!/usr/bin/env bash
# End-to-end tests of futhark-lsp through a real LSP client (pytest-lsp): installs the
# Python dependencies into a virtual environment under target/ (never the system pip),
# builds the server in release mode and runs pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
venv="${FUTHARK_LSP_VENV:-$target/lsp-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/lsp/requirements.txt
cargo build --release --locked -p futhark-lsp
export FUTHARK_LSP="$target/release/futhark-lsp"
exec "$venv/bin/python" -m pytest -c tests/lsp/pytest.ini --rootdir tests/lsp -q tests/lsp "$@"
