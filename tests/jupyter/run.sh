#!/usr/bin/env bash
# The Jupyter kernel's end-to-end tests: installs the Python requirements into a virtual
# environment, builds futhark-jupyter (release), installs its kernelspec into a temporary
# JUPYTER_DATA_DIR (so the user's Jupyter setup is untouched) and runs pytest: the
# jupyter_kernel_test conformance suite, protocol tests, the example notebooks and a
# notebook in JupyterLab under headless chromium (test_browser.py).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
venv="${FUTHARK_JUPYTER_VENV:-$target/jupyter-venv}"

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
# The headless-browser test needs JupyterLab, Playwright's driver and Debian's chromium; it
# skips (saying why) without them, so a failed install does not fail the suite by itself.
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements-browser.txt" \
    || echo "warning: could not install JupyterLab/Playwright; the browser test will be skipped"
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    sudo_if_needed() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }
    { sudo_if_needed apt-get update -qq && sudo_if_needed env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends chromium; } >/dev/null 2>&1 \
        || echo "warning: could not install chromium; the browser test will be skipped"
fi

(cd "$repo" && cargo build --release --locked -p futhark-jupyter)

data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT
export JUPYTER_DATA_DIR="$data"
# The tests run on the interpreter whatever GPUs the machine has.
"$target/release/futhark-jupyter" install --user --backend interp

export FUTHARK_JUPYTER="$target/release/futhark-jupyter"
cd "$here"
"$venv/bin/python" -m pytest -q "$@"
