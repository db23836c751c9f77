#!/usr/bin/env bash
# Puts what bench/matrix/device-run.sh needs into .gpu/ (git-ignored, carried to the GPU
# machine), as bench/safety/bundle.sh does: the release futhark-rs (stripped, gzipped), the
# test binary of compiler/exec/tests/contraction.rs (the ignored GPU checks of the tiled
# kernels), a baseline futhark-rs when BASE=path names one (for the rodinia/parboil
# comparison), and the benchmark programs copied from ../shared.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
target="${CARGO_TARGET_DIR:-$repo/target}"
gpu="$repo/.gpu"
cargo build --release -p futhark-rs
rm -rf "$gpu/bin"; mkdir -p "$gpu/bin"
cp "$target/release/futhark-rs" "$gpu/bin/"
if [[ -n "${BASE:-}" ]]; then cp "$BASE" "$gpu/bin/futhark-rs-base"; fi
tests=$(cargo test --release -p futhark-exec --test contraction --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "contraction":
        print(m["executable"])')
cp "$tests" "$gpu/bin/contraction-tests"
strip "$gpu"/bin/*
gzip -9f "$gpu"/bin/*
shared="$repo/../shared/benchmarks"
if [[ -d "$gpu/benchmarks" ]]; then chmod -R u+w "$gpu/benchmarks"; rm -rf "$gpu/benchmarks"; fi
mkdir -p "$gpu/benchmarks/rodinia" "$gpu/benchmarks/parboil"
cp -r "$shared/rodinia/backprop" "$shared/rodinia/nn" "$shared/rodinia/lud" "$gpu/benchmarks/rodinia/"
cp -r "$shared/parboil/tpacf" "$gpu/benchmarks/parboil/"
chmod -R u+w "$gpu/benchmarks"
du -sh "$gpu"
