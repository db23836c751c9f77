#!/usr/bin/env bash
# Puts what bench/safety/device-run.sh needs into .gpu/ (git-ignored, carried to the GPU
# machine): release futhark-rs, futhark-repl and futhark-jupyter, the conformance corpus and
# the benchmark programs (copied from ../shared).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
target="${CARGO_TARGET_DIR:-$repo/target}"
gpu="$repo/.gpu"
# BUNDLE=cli: futhark-rs and prims_bench alone (what bench/hist/device-run.sh needs).
if [[ "${BUNDLE:-}" == cli ]]; then
  cargo build --release -p futhark-rs
  cargo build --release -p futhark-cuda --example prims_bench
  rm -rf "$gpu/bin"; mkdir -p "$gpu/bin"
  cp "$target/release/futhark-rs" "$target/release/examples/prims_bench" "$gpu/bin/"
  strip "$gpu"/bin/*
  gzip -9f "$gpu"/bin/*
  du -sh "$gpu"
  exit 0
fi
cargo build --release -p futhark-rs -p futhark-repl -p futhark-jupyter
rm -rf "$gpu/bin"; mkdir -p "$gpu/bin"
cp "$target/release/futhark-rs" "$target/release/futhark-repl" "$target/release/futhark-jupyter" "$gpu/bin/"
# The CLI's test binary, for the GPU run of the checks' property test (`--ignored`).
fuzz=$(cargo test --release -p futhark-rs --bin futhark-rs --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "futhark-rs" and m["profile"]["test"]:
        print(m["executable"])')
cp "$fuzz" "$gpu/bin/futhark-rs-tests"
# Carried to the device under 64 MiB with the rest of the tree: device-run.sh unpacks them.
strip "$gpu"/bin/*
gzip -9f "$gpu"/bin/*
shared="$repo/../shared"
for d in corpus benchmarks; do
  if [[ -d "$gpu/$d" ]]; then chmod -R u+w "$gpu/$d"; rm -rf "${gpu:?}/$d"; fi
done
cp -r "$shared/conformance/futhark-tests" "$gpu/corpus"
mkdir -p "$gpu/benchmarks"
cp -r "$shared/benchmarks/accelerate" "$shared/benchmarks/finpar" "$gpu/benchmarks/"
chmod -R u+w "$gpu/corpus" "$gpu/benchmarks"
du -sh "$gpu"
