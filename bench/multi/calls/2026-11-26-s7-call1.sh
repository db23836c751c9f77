#!/usr/bin/env bash
# Session 7, call 1: the multi-GPU benchmark set on 1, 2 and 4 GPUs with row-local husk
# reads, steady-state cost decisions and balanced rows (build bcf49d2); LocVolCalib also
# with --split always, mandelbrot also without balancing; the 1-GPU overhead; peer matrix;
# then the CPU simulation of the corpus over 4 devices (--mode ir --split always).
set -u
date -u
ONLY='mandelbrot|tunnel|nbody|LocVolCalib|cfd|make \+ 10' BENCH_TIMEOUT=100 bash .gpu/device-run.sh bench 1 2 4
echo "== LocVolCalib --split always"
OUT=$OUT/always SPLIT=always ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 2 4
echo "== mandelbrot d1000 without balancing"
OUT=$OUT/nobal FUTHARK_BALANCE=0 ONLY='depth 1000' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 4
for f in /tmp/multi-data/LocVolCalib*-g2.err /tmp/multi-data/LocVolCalib*-g4.err /tmp/multi-data/mandelbrot_16000__depth_1000-g4.err; do
  echo "== $f"; grep -h "husk" "$f" | sed 's/entry_main_[0-9]*_//' | cut -c1-170 | head -45
done
date -u
echo "== ir corpus, 4 simulated devices, split always"
timeout 200 .gpu/bin/futhark-rs test --mode ir --gpus 4 --split always --timeout 60 -j 60 --json "$OUT/ir-g4.json" .gpu/corpus > "$OUT/ir-g4.log" 2>&1
echo "exit $?: $(tail -1 "$OUT/ir-g4.log")"
gzip -f "$OUT/ir-g4.json"
date -u
