#!/usr/bin/env bash
# The whole test suite: formatting, lints, every crate's tests (including the conformance
# ratchets, which read ../shared when it exists and say so when it does not).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test (release: the corpus and fuzz tests are CPU-bound)"
mkdir -p target
cargo test --workspace --release --locked 2>&1 | tee target/test-output.txt
# One summary line for CI: totals over every test binary.
awk '/^test result:/ { p += $4; f += $6; s += $8 } END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' target/test-output.txt
echo "== VS Code extension (npm ci, tsc, grammar tests, .vsix)"
editors/vscode/build.sh
echo "== language server end to end (pytest-lsp)"
tests/lsp/run.sh
echo "== jupyter kernel (jupyter_kernel_test, nbclient)"
tests/jupyter/run.sh
