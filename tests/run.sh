#!/usr/bin/env bash
# The whole test suite: formatting, lints, every crate's tests (including the conformance
# ratchets, which read ../shared when it exists and say so when it does not).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== [${SECONDS} s] cargo fmt --check"
cargo fmt --all -- --check
echo "== [${SECONDS} s] cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== [${SECONDS} s] cargo test (release: the corpus and fuzz tests are CPU-bound)"
mkdir -p target
# The corpus test also compiles every kernel it generates with NVRTC (when the wheel is
# installed) and leaves its counts in target/corpus-gpu-path.txt, printed below.
rm -f target/corpus-gpu-path.txt target/conformance.txt
CORPUS_NVRTC=1 CORPUS_REPORT="$PWD/target/corpus-gpu-path.txt" \
  CONFORMANCE_REPORT="$PWD/target/conformance.txt" \
  cargo test --workspace --release --locked 2>&1 | tee target/test-output.txt
# One summary line for CI: totals over every test binary.
awk '/^test result:/ { p += $4; f += $6; s += $8 } END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' target/test-output.txt
echo "== [${SECONDS} s] the conformance ratchet (passed per mode, wall time)"
if [[ -f target/conformance.txt ]]; then cat target/conformance.txt
else echo "(no report: the ratchet was skipped)"; fi
echo "== [${SECONDS} s] the corpus through the GPU path (lowering, kernels, CUDA C, NVRTC)"
if [[ -f target/corpus-gpu-path.txt ]]; then head -3 target/corpus-gpu-path.txt; grep '^NVRTC' target/corpus-gpu-path.txt || true
else echo "(no report: the corpus test was skipped)"; fi
echo "== [${SECONDS} s] VS Code extension (npm ci, tsc, grammar tests, .vsix)"
editors/vscode/build.sh
echo "== [${SECONDS} s] language server end to end (pytest-lsp)"
tests/lsp/run.sh
echo "== [${SECONDS} s] jupyter kernel (jupyter_kernel_test, nbclient)"
tests/jupyter/run.sh
echo "== [${SECONDS} s] done"
