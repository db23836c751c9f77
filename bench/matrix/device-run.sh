#!/usr/bin/env bash
# Issue 23 on a GPU machine (run from the repository root with the bundle of
# bench/matrix/bundle.sh in .gpu/; carry [".gpu"]): the GPU checks of the tiled kernels
# against the interpreter (1 GPU, and split over 2 when there are 2), the matrix benchmarks
# against JAX (bench/matrix/run.py), and rodinia backprop/nn/lud and parboil tpacf with
# this build and the baseline. Results go to $OUT (matrix.md first); about 6-8 minutes.
# QUICK=1: small sizes only.
set -uo pipefail
bin=.gpu/bin
for z in "$bin"/*.gz; do [[ -e $z ]] && gunzip -f "$z"; done
chmod +x "$bin"/* 2>/dev/null
out="${OUT:-/tmp/matrix-out}"
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv > "$out/gpus.txt" 2>&1
ngpu=$(nvidia-smi -L | wc -l)

# 1. Correctness of the tiled kernels on the GPU (sizes that are not tile multiples,
#    min-plus and argmax operators, batched and 1-D forms).
tests="gpu::gpu_tiled_contractions_match_the_interpreter"
[[ $ngpu -ge 2 ]] && tests="gpu::gpu_tiled_contractions_"
timeout 240 $bin/contraction-tests --ignored --test-threads=1 "$tests" > "$out/gpu-checks.txt" 2>&1
echo "GPU checks: exit $?: $(grep 'test result' "$out/gpu-checks.txt")"

# 2. The matrix benchmarks against JAX.
q=""; [[ -n "${QUICK:-}" ]] && q="--quick"
timeout 420 python3 bench/matrix/run.py "$bin/futhark-rs" "$out" $q > "$out/run-log.txt" 2>&1
echo "matrix benchmarks: exit $?"

# 3. rodinia backprop/nn/lud, parboil tpacf: this build and the baseline, same data.
b=.gpu/benchmarks
mkdir -p /tmp/rp
$bin/futhark-rs dataset -b --i32-bounds 10:10 -g i32 -g f32 -g f32 -g '[855280]f32' -g '[855280]f32' > /tmp/rp/nn.in
$bin/futhark-rs dataset -b -g '[4096]f64' -g '[4096]f64' -g '[100][4096]f64' -g '[100][4096]f64' > /tmp/rp/tpacf.in
{
  echo "| program | this build | baseline |"; echo "|---|---|---|"
  for exe in futhark-rs futhark-rs-base; do [[ -x $bin/$exe ]] || continue
    for p in $b/rodinia/backprop/backprop.fut $b/rodinia/lud/lud.fut; do
      timeout 120 $bin/$exe bench --backend cuda --runs 10 --json "/tmp/rp/$(basename $p)-$exe.json" "$p" > /dev/null 2>&1
    done
    timeout 120 $bin/$exe bench --backend cuda --runs 10 --input /tmp/rp/nn.in --json "/tmp/rp/nn-$exe.json" $b/rodinia/nn/nn.fut > /dev/null 2>&1
    timeout 120 $bin/$exe bench --backend cuda --runs 10 --input /tmp/rp/tpacf.in --json "/tmp/rp/tpacf-$exe.json" $b/parboil/tpacf/tpacf.fut > /dev/null 2>&1
  done
  python3 - <<'PY'
import glob, json, os, statistics
rows = {}
for f in glob.glob("/tmp/rp/*.json"):
    exe = "base" if f.endswith("-base.json") else "new"
    try:
        for prog, d in json.load(open(f)).items():
            for ds, r in d["datasets"].items():
                if r.get("runtimes"):
                    rows.setdefault((os.path.basename(prog), os.path.basename(ds)), {})[exe] = statistics.median(r["runtimes"])
    except Exception as e:
        print("|", f, "|", e, "| |")
for (p, ds), v in sorted(rows.items()):
    print(f"| {p} {ds} | {v.get('new', '-')} μs | {v.get('base', '-')} μs |")
PY
} > "$out/rodinia.md" 2>&1
cat "$out/rodinia.md"
echo
cat "$out/matrix.md" 2>/dev/null || tail -40 "$out/run-log.txt"
