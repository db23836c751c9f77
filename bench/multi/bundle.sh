#!/usr/bin/env bash
# Puts what bench/multi/device-run.sh and corpus-run.sh need into .gpu/ (git-ignored, carried to the GPU
# machine): the release futhark-rs, peer_bench, prims_bench, the conformance corpus and the benchmark
# programs (copied from ../shared), and optionally an older single-GPU futhark-rs to compare
# the 1-GPU path with (SINGLE_BIN=path).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
target="${CARGO_TARGET_DIR:-$repo/target}"
# Where the bundle goes: the checkout the device tool sends (GPU_DIR=/path/.gpu to override).
gpu="${GPU_DIR:-$repo/.gpu}"
cargo build --release -p futhark-rs
cargo build --release -p futhark-cuda --example peer_bench --example prims_bench
cargo build --release -p futhark-exec --example compile_bench
mkdir -p "$gpu/bin"
cp "$target/release/futhark-rs" "$gpu/bin/"
cp "$target/release/examples/peer_bench" "$target/release/examples/prims_bench" "$target/release/examples/compile_bench" "$gpu/bin/"
cp bench/multi/device-run.sh bench/multi/compare_runs.py bench/multi/resident.fut bench/multi/corpus-run.sh bench/multi/corpus_files.py bench/multi/profile_summary.py bench/multi/trace_gaps.py bench/multi/kernel_scaling.py bench/multi/segscan.fut bench/multi/segscan-check.sh "$gpu/"
if [[ -n "${SINGLE_BIN:-}" ]]; then cp "$SINGLE_BIN" "$gpu/bin/futhark-rs-single"; fi
shared="$repo/../shared"
for d in corpus benchmarks; do
  if [[ -d "$gpu/$d" ]]; then chmod -R u+w "$gpu/$d"; rm -rf "${gpu:?}/$d"; fi
done
cp -r "$shared/conformance/futhark-tests" "$gpu/corpus"
mkdir -p "$gpu/benchmarks/rodinia"
cp -r "$shared/benchmarks/accelerate" "$shared/benchmarks/finpar" "$gpu/benchmarks/"
for r in cfd backprop hotspot srad nn; do cp -r "$shared/benchmarks/rodinia/$r" "$gpu/benchmarks/rodinia/"; done
chmod -R u+w "$gpu/corpus" "$gpu/benchmarks"
du -sh "$gpu"
