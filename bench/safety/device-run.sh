#!/usr/bin/env bash
# Issue 21 on a GPU machine (run from the repository root with the bundle of
# bench/safety/bundle.sh in .gpu/): the out-of-bounds example on the CLI, the REPL and a
# notebook; the corpus cases that expect a run-time error (and, with FULL=1, the whole
# corpus) with --mode cuda; and the cost of the checks (checked vs --unsafe, interleaved).
# Results go to $OUT.
set -uo pipefail
bin=.gpu/bin
for z in "$bin"/*.gz; do [[ -e $z ]] && gunzip -f "$z"; done
out="${OUT:-/tmp/safety-out}"
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv > "$out/gpus.txt" 2>&1
ngpu=$(nvidia-smi -L | wc -l)
jobs=$(( $(nproc) - 2 ))
log="$out/e2e.txt"
if [[ -z "${ONLY_CORPUS:-}" ]]; then
[[ -z "${SKIP_E2E:-}" ]] && {
  echo "== futhark-rs run --backend cuda (the issue's example)"
  echo '[1,2,3,4,5,6,7,8,9,10] 5i64' | $bin/futhark-rs run --backend cuda bench/safety/oob.fut; echo "exit $?"
  echo '[1,2,3,4,5,6,7,8,9,10] 0i64' | $bin/futhark-rs run --backend cuda bench/safety/oob.fut; echo "exit $?"
  echo "== the same with --unsafe"
  echo '[1,2,3,4,5,6,7,8,9,10] 5i64' | $bin/futhark-rs run --backend cuda --unsafe bench/safety/oob.fut; echo "exit $?"
  if [[ $ngpu -ge 2 ]]; then
    echo "== two GPUs, every kernel split"
    for i in 5 0; do
      echo "[1,2,3,4,5,6,7,8,9,10] ${i}i64" | $bin/futhark-rs run --backend cuda --gpus 2 --split always bench/safety/oob.fut; echo "exit $?"
    done
  fi
  echo "== futhark-repl --backend cuda"
  printf 'let xs = [1,2,3,4,5,6,7,8,9,10i32]\nmap (\\j -> xs[j + 5]) (iota 10)\ni64.sum (iota 10)\n:profile\n' \
    | $bin/futhark-repl --backend cuda 2>&1
  echo "== futhark-jupyter run (a notebook: the failing cell stops it, as nbconvert does)"
  cp bench/safety/oob.ipynb /tmp/oob.ipynb
  $bin/futhark-jupyter run --backend cuda /tmp/oob.ipynb 2>&1; echo "exit $?"
  python3 -c "import json; nb=json.load(open('/tmp/oob.ipynb'))
for c in nb['cells']:
    print(repr(c['source']), '=>', [o.get('evalue') or o.get('data',{}).get('text/plain') for o in c['outputs']])"
  echo "== the notebook without its failing cell's successor cut off: cells 1 and 3 only after the error"
  python3 - <<'PY'
import json
nb=json.load(open('bench/safety/oob.ipynb'))
nb['cells']=[nb['cells'][2]]
json.dump(nb, open('/tmp/after.ipynb','w'))
PY
  $bin/futhark-jupyter run --backend cuda /tmp/after.ipynb 2>&1; echo "exit $?"
  python3 -c "import json; nb=json.load(open('/tmp/after.ipynb'))
print([o.get('data',{}).get('text/plain') for c in nb['cells'] for o in c['outputs']])"
} > "$log" 2>&1
cat "$log"

# The property test of the checks (random index expressions), GPU against the interpreter.
if [[ -x $bin/futhark-rs-tests && -z "${SKIP_FUZZ:-}" ]]; then
  timeout 240 $bin/futhark-rs-tests --ignored --exact safety_fuzz::gpu_checks_agree_with_the_interpreter \
    > "$out/fuzz-gpu.txt" 2>&1
  echo "fuzz on the GPU: exit $?: $(grep 'test result' "$out/fuzz-gpu.txt")"
fi

# The corpus cases that expect a run-time error: interp and cuda, same files.
python3 - > /tmp/error-files.txt <<'PY'
import os, re
root = '.gpu/corpus'
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith('.fut'):
            p = os.path.join(d, f)
            t = open(p, errors='replace').read()
            if re.search(r'^--\s*error:', t, re.M) and re.search(r'^--\s*(compiled\s+)?(random\s+)?input', t, re.M):
                print(p)
PY
echo "error-case files: $(wc -l < /tmp/error-files.txt)"
for mode in interp cuda; do
  # SPLIT=always: every kernel split over the visible GPUs (a failing piece on one GPU).
  split=(); [[ $mode == cuda && -n "${SPLIT:-}" ]] && split=(--split "$SPLIT")
  xargs -a /tmp/error-files.txt timeout 300 $bin/futhark-rs test --mode $mode "${split[@]}" --timeout 60 -j $jobs \
    --json "$out/errors-$mode.json" > "$out/errors-$mode.log" 2>&1
  echo "$mode: $(tail -1 "$out/errors-$mode.log")"
done
gzip -f "$out"/errors-*.json

# Checks on and off, interleaved (ROUNDS rounds).
d=/tmp/safety-data
mkdir -p "$d"
$bin/futhark-rs dataset -b -s 1 -g '[268435456]f32' > "$d/f32.in"
echo "16000 16000 -0.7f32 0f32 3.067f32 100 16f32" > "$d/mandel.in"
echo "10f32 16000 16000" > "$d/tunnel.in"
{ echo "1i32 50f32 1f32"; for s in 11 12 13 14 15 16 17; do $bin/futhark-rs dataset -b -s $s -g '[100000]f32'; done; } > "$d/nbody.in"
B=.gpu/benchmarks
rows=(
  "map 2^28 f32|bench/safety/checks.fut|map_|$d/f32.in"
  "reduce 2^28 f32|bench/safety/checks.fut|reduce_|$d/f32.in"
  "scan 2^28 f32|bench/safety/checks.fut|scan_|$d/f32.in"
  "gather 2^28 f32 (checked)|bench/safety/checks.fut|gather|$d/f32.in"
  "stencil 2^28 f32 (checked)|bench/safety/checks.fut|stencil|$d/f32.in"
  "mandelbrot 16000² depth 100|$B/accelerate/mandelbrot/mandelbrot.fut|main|$d/mandel.in"
  "nbody 100k bodies|$B/accelerate/nbody/nbody.fut|main|$d/nbody.in"
  "tunnel 10f32 16000²|$B/accelerate/tunnel/tunnel.fut|main|$d/tunnel.in"
  "LocVolCalib large|$B/finpar/LocVolCalib.fut|main|$B/finpar/LocVolCalib-data/large.in"
)
printf 'benchmark\tround\tchecked ms\tunsafe ms\tratio\n' > "$out/checks.tsv"
median() { python3 -c "import json,statistics,sys
d=json.load(open(sys.argv[1]))
print('%.3f' % (statistics.median([x for e in d.values() for ds in e['datasets'].values() for x in ds['runtimes']])/1000))" "$1" 2>/dev/null; }
for round in $(seq 1 "${ROUNDS:-2}"); do
  for row in "${rows[@]}"; do
    IFS='|' read -r name prog entry input <<<"$row"
    [[ -n "${ONLY:-}" && ! "$name" =~ $ONLY ]] && continue
    tag="$(echo "$name" | tr -c 'a-zA-Z0-9' '_')-r$round"
    # Alternate which goes first, so that neither is always measured on a warmer GPU.
    order="checked unsafe"; (( round % 2 == 0 )) && order="unsafe checked"
    for how in $order; do
      flag=""; [[ $how == unsafe ]] && flag="--unsafe"
      timeout 180 $bin/futhark-rs bench --backend cuda --gpus 1 $flag --runs "${RUNS:-10}" --budget 15 \
        --input "$input" -e "$entry" --json "$d/$tag-$how.json" "$prog" > "$d/$tag-$how.txt" 2>&1 \
        || echo "$name $how: exit $?: $(tail -2 "$d/$tag-$how.txt")"
    done
    c=$(median "$d/$tag-checked.json"); u=$(median "$d/$tag-unsafe.json")
    r=$(python3 -c "import sys; print('%.4f' % (float(sys.argv[1])/float(sys.argv[2])))" "$c" "$u" 2>/dev/null)
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$round" "$c" "$u" "$r" | tee -a "$out/checks.tsv"
  done
done
tar czf "$out/bench-logs.tgz" -C "$d" --exclude='*.in' . 2>/dev/null
fi

if [[ -n "${FULL:-}" ]]; then
  timeout "${FULL_LIMIT:-400}" $bin/futhark-rs test --mode cuda --gpus 1 --timeout 60 -j $jobs \
    --time-limit "${TIME_LIMIT:-330}" --json "$out/corpus-cuda-g1.json" .gpu/corpus > "$out/corpus-cuda-g1.log" 2>&1
  echo "corpus cuda g1: $(tail -1 "$out/corpus-cuda-g1.log")"
  gzip -f "$out/corpus-cuda-g1.json"
fi
