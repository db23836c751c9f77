#!/usr/bin/env bash
# Builds the release `futhark-rs` and puts everything a GPU run needs into `.gpu/`
# (git-ignored, carried to the device machine, which has no Rust):
#
#   .gpu/bin/futhark-rs        the command line (run, test --mode cuda|ir, bench)
#   .gpu/smoke/*.fut           tiny programs covering every kernel kind, with inputs
#   .gpu/run-cuda.sh           what to run there: smoke runs with --profile, then the
#                              conformance corpus in cuda mode if it was carried along
#   .gpu/corpus/               the conformance corpus, with --with-corpus (from ../shared)
#
# Usage: bench/gpu/device-bundle.sh [--with-corpus]
# On the device:  bash .gpu/run-cuda.sh        (writes results to $OUT when set)
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
out="$repo/.gpu"
target="${CARGO_TARGET_DIR:-$repo/target}"

cargo build --release -p futhark-rs
mkdir -p "$out/bin" "$out/smoke"
cp "$target/release/futhark-rs" "$out/bin/futhark-rs"

if [[ "${1:-}" == "--with-corpus" ]]; then
    corpus="$repo/../shared/conformance/futhark-tests"
    if [[ ! -d "$corpus" ]]; then
        echo "no corpus at $corpus" >&2
        exit 1
    fi
    # The shared corpus is read-only; make the copy writable so a later bundle can replace it.
    [[ -d "$out/corpus" ]] && chmod -R u+w "$out/corpus"
    rm -rf "$out/corpus"
    cp -r "$corpus" "$out/corpus"
    chmod -R u+w "$out/corpus"
fi

# Every segmented operation, empty arrays, scalars as kernel inputs, shapeless results.
cat > "$out/smoke/kinds.fut" <<'FUT'
entry red (xs: []f32) = reduce (+) 0 xs
entry scan_ (xs: []i32) = scan (+) 0 xs
entry map_ (a: f32) (xs: []f32) = map (\x -> a * x + 1) xs
entry segred (xss: [][]i64) = map (\xs -> reduce (+) 0 xs) xss
entry segscan (xss: [][]i64) = map (\xs -> scan (+) 0 xs) xss
entry hist_ (is: []i64) = hist (+) 0i32 10 is (map (const 1) is)
entry scatter_ (n: i64) (is: []i64) (vs: []f64) = scatter (replicate n 0f64) is vs
entry loop_ (n: i64) (xs: []f32) = loop xs for _i < n do map (* 2) xs
FUT
cat > "$out/smoke/inputs.sh" <<'SH'
# entry|input text|expected output text
SMOKE=(
  "red|[1f32, 2f32, 3f32]|6f32"
  "red|empty([0]f32)|0f32"
  "scan_|[1, 2, 3, 4]|[1, 3, 6, 10]"
  "map_|2f32 [1f32, 2f32]|[3f32, 5f32]"
  "segred|[[1i64, 2i64], [3i64, 4i64], [5i64, 6i64]]|[3i64, 7i64, 11i64]"
  "segscan|[[1i64, 2i64], [3i64, 4i64]]|[[1i64, 3i64], [3i64, 7i64]]"
  "hist_|[1i64, 1i64, 9i64, 12i64, -1i64]|[0, 2, 0, 0, 0, 0, 0, 0, 0, 1]"
  "scatter_|3i64 [0i64, 2i64, 7i64] [1f64, 2f64, 3f64]|[1f64, 0f64, 2f64]"
  "loop_|3i64 [1f32, 0.5f32]|[8f32, 4f32]"
)
SH

cat > "$out/run-cuda.sh" <<'SH'
#!/usr/bin/env bash
# Runs on the GPU machine from the repository root: smoke tests, then the corpus.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$here/bin/futhark-rs"
res="${OUT:-$here/results}"
mkdir -p "$res"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$res/gpu.txt"

# shellcheck source=/dev/null
source "$here/smoke/inputs.sh"
ok=0; bad=0
for row in "${SMOKE[@]}"; do
  IFS='|' read -r entry input expected <<<"$row"
  got="$(echo "$input" | "$bin" run "$here/smoke/kinds.fut" -e "$entry" --backend cuda --profile 2>>"$res/smoke-stderr.txt" | tr '\n' ' ' | sed 's/ *$//')"
  ref="$(echo "$input" | "$bin" run "$here/smoke/kinds.fut" -e "$entry" --backend interp 2>/dev/null | tr '\n' ' ' | sed 's/ *$//')"
  if [[ -n "$got" && "$got" == "$ref" ]]; then ok=$((ok+1)); s=PASS; else bad=$((bad+1)); s=FAIL; fi
  echo "$s $entry: got [$got] interp [$ref] expected [$expected]" | tee -a "$res/smoke.txt"
done
echo "smoke: $ok passed, $bad failed" | tee -a "$res/smoke.txt"
echo "--- last --profile output and errors (smoke-stderr.txt):"
tail -n 12 "$res/smoke-stderr.txt"

if [[ -d "$here/corpus" ]]; then
  # Bounded so the results come back within the device tool's 10-minute command limit.
  jobs="${JOBS:-12}"
  timeout "${CORPUS_LIMIT:-480}" "$bin" test --mode cuda --timeout 60 -j "$jobs" \
    --json "$res/cuda.json" "$here/corpus" >"$res/cuda-test.txt" 2>&1
  status=$?
  tail -n 40 "$res/cuda-test.txt"
  echo "corpus exit status: $status (124: stopped by the time limit)"
fi
SH
chmod +x "$out/run-cuda.sh"
echo "bundle ready in $out ($(du -sh "$out" | cut -f1)); carry .gpu and run: bash .gpu/run-cuda.sh"
