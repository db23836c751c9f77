#!/usr/bin/env bash
# Session 7, call 3 (build bfefc0d): mandelbrot d1000 on 1/2/4 GPUs with 10 runs (balanced
# rows settle after ~4 launches); cfd interleaved G = 1, 2, 4 three times; the corpus with
# --gpus 2 --split always as two groups side by side; then --gpus 4 with 12 workers (call 2's
# 48 workers with four contexts each timed out nearly every case) until the time limit.
set -u
date -u
RUNS=10 ONLY='depth 1000' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 1 2 4
python3 -c "
import json,glob
for f in sorted(glob.glob('/tmp/multi-data/mandel*.json')):
    d=json.load(open(f)); print(f.split('/')[-1],[x for e in d.values() for ds in e['datasets'].values() for x in ds['runtimes']])"
grep -h "balanced" /tmp/multi-data/mandel*-g4.err | cut -c1-160
echo "== LocVolCalib --split always, G = 4 (call 2's runs slowed from 231 to 322 ms)"
OUT=/tmp/al RUNS=5 SPLIT=always ONLY=LocVolCalib SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 4 >/dev/null 2>&1
python3 -c "import json,sys;d=json.load(open(sys.argv[1]));print('LocVolCalib always G=4', [x for e in d.values() for ds in e['datasets'].values() for x in ds['runtimes']])" /tmp/multi-data/LocVolCalib_large_-g4-always.json
n=193474; d=/tmp/multi-data
for round in 1 2 3; do for g in 1 2 4; do
  .gpu/bin/futhark-rs bench --backend cuda --gpus $g --runs 1 --budget 20 --input $d/cfd.in -e main --json /tmp/cfd-$g-$round.json .gpu/benchmarks/rodinia/cfd/cfd.fut > /dev/null 2>&1
  python3 -c "import json,sys;d=json.load(open(sys.argv[1]));print('cfd G=$g round $round', [x for e in d.values() for ds in e['datasets'].values() for x in ds['runtimes']])" /tmp/cfd-$g-$round.json
done; done
date -u
echo "== corpus --gpus 2 --split always"
OUT=$OUT/c2 BASE=bench/results/cuda-corpus-g1-2026-11-26.json.gz TIME_LIMIT=${TL2:-320} bash .gpu/corpus-run.sh 2 2>&1 | tail -30
date -u
echo "== corpus --gpus 4 --split always, 12 workers"
OUT=$OUT/c4 JOBS=12 BASE=bench/results/cuda-corpus-g1-2026-11-26.json.gz TIME_LIMIT=${TL4:-100} bash .gpu/corpus-run.sh 4 2>&1 | tail -12
tar czf "$OUT/corpus.tgz" -C "$OUT" c2 c4 && rm -rf "$OUT/c2" "$OUT/c4"
date -u
