#!/usr/bin/env bash
# Builds futhark-repl and futhark-jupyter (release) into .gpu/session/bin (git-ignored), for
# the GPU host, which has no Rust. Then, on the device (repository root, `.gpu` carried):
#   bash bench/session/gpu-run.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
target="${CARGO_TARGET_DIR:-$repo/target}"
cargo build --release -p futhark-repl -p futhark-jupyter
mkdir -p .gpu/session/bin
cp "$target/release/futhark-repl" "$target/release/futhark-jupyter" .gpu/session/bin/
echo "bundled into .gpu/session/bin; on the device: bash bench/session/gpu-run.sh"
