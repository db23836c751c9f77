#!/usr/bin/env bash
# Session 7, call 2 (build b150729): the benchmark set on 1, 2 and 4 GPUs (pieces follow
# their inputs' rows, whole launches pay for gathers, balancing ignores < 0.25 ms);
# LocVolCalib also with --split always; then the corpus with --gpus 4 --split always on
# all four GPUs until the time limit (a part of the corpus; compared with the --gpus 1 report).
set -u
date -u
ONLY='mandelbrot|tunnel|nbody|LocVolCalib|cfd|make \+ 10' SKIP_OVERHEAD=1 BENCH_TIMEOUT=100 bash .gpu/device-run.sh bench 1 2 4
echo "== LocVolCalib --split always"
OUT=$OUT/always SPLIT=always ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 2 4
cat "$OUT/always/bench.tsv"
for f in /tmp/multi-data/LocVolCalib*-g2.err /tmp/multi-data/LocVolCalib*-g4.err /tmp/multi-data/mandelbrot*depth_1000*-g4.err; do
  echo "== $f"; grep -h "husk" "$f" | sed 's/entry_main_[0-9]*_//' | cut -c1-140 | head -45
done
python3 -c "
import json,glob
for f in sorted(glob.glob('/tmp/multi-data/*.json')):
    d=json.load(open(f)); print(f.split('/')[-1],[x for e in d.values() for ds in e['datasets'].values() for x in ds['runtimes']])"
rm -rf "$OUT/always/gpus.txt"
date -u
echo "== corpus --gpus 4 --split always (part)"
OUT=$OUT/c4 BASE=bench/results/cuda-corpus-g1-2026-11-26.json.gz TIME_LIMIT=${TL:-230} bash .gpu/corpus-run.sh 4 2>&1 | tail -25
tar czf "$OUT/c4.tgz" -C "$OUT" c4 && rm -rf "$OUT/c4"
date -u
