#!/usr/bin/env bash
# Session 6, call 4: the multi-GPU benchmark set on 1, 2 and 4 GPUs, mandelbrot with FMA
# contraction allowed for comparison, then the primitives with JAX/CuPy in the same run.
set -u
date -u
ONLY='mandelbrot 16000² depth 1000|tunnel|nbody|LocVolCalib|cfd|make \+ 10' SKIP_OVERHEAD=1 BENCH_TIMEOUT=100 \
  bash .gpu/device-run.sh bench 1 2 4
echo "== mandelbrot d1000, 1 GPU, FUTHARK_FMAD=1 vs default"
echo "16000 16000 -0.7f32 0f32 3.067f32 1000 16f32" > /tmp/m.in
for f in 1 0; do
  if [[ $f == 1 ]]; then export FUTHARK_FMAD=1; else unset FUTHARK_FMAD; fi
  .gpu/bin/futhark-rs bench --backend cuda --gpus 1 --runs 5 --input /tmp/m.in -e main --json /tmp/m$f.json .gpu/benchmarks/accelerate/mandelbrot/mandelbrot.fut > /dev/null 2>&1
  python3 -c "import json,statistics,sys;d=json.load(open(sys.argv[1]));print('FUTHARK_FMAD=$f', statistics.median([x for e in d.values() for ds in e['datasets'].values() for x in ds['runtimes']]))" /tmp/m$f.json
done
unset FUTHARK_FMAD
echo "== prims"; date -u
mkdir -p "$OUT/prims"
CUDA_VISIBLE_DEVICES=0 PRIMS_SCAN_VARIANTS=wide-b512-q24-delay,base timeout 150 .gpu/bin/prims_bench --trace none "$OUT/prims" > "$OUT/prims/rust.log" 2>&1; echo "prims exit $?"
CUDA_VISIBLE_DEVICES=0 timeout 120 python3 bench/gpu/jax_cupy_bench.py "$OUT/prims" > "$OUT/prims/py.log" 2>&1; echo "jax exit $?"
python3 bench/gpu/report.py "$OUT/prims"
grep -h "husk" /tmp/multi-data/LocVolCalib*-g2.err | cut -c1-150 | head -45
grep -h "husk" /tmp/multi-data/cfd*-g2.err | cut -c1-150 | head -14
date -u
