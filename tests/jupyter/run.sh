#!/usr/bin/env bash
# The Jupyter kernel's end-to-end tests: installs the Python requirements into a virtual
# environment, builds futhark-jupyter (release), installs its kernelspec into a temporary
# JUPYTER_DATA_DIR (so the user's Jupyter setup is untouched) and runs pytest: the
# jupyter_kernel_test conformance suite, protocol tests and the example notebooks.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
venv="${FUTHARK_JUPYTER_VENV:-$target/jupyter-venv}"

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"

(cd "$repo" && cargo build --release --locked -p futhark-jupyter)

data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT
export JUPYTER_DATA_DIR="$data"
# The tests run on the interpreter whatever GPUs the machine has.
"$target/release/futhark-jupyter" install --user --backend interp

export FUTHARK_JUPYTER="$target/release/futhark-jupyter"
cd "$here"
"$venv/bin/python" -m pytest -q "$@"
