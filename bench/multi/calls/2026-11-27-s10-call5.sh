#!/usr/bin/env bash
# Session 10, call 5 (build of call 4 plus a host-only change: profile entries looked up
# before inserting): cfd on 1, 2 and 4 GPUs interleaved, 4 rounds of 5 runs (its G = 2 / G = 1
# ratio moved between 0.96 and 1.02 across calls with 3 runs), then --gpus 2 --split always
# over the corpus on two groups of two GPUs for 300 s (copies now ordered per buffer,
# scalar uploads by memsets), compared with session 6's --gpus 1 report.
set -u
date -u
bin=.gpu/bin/futhark-rs
export NCCL_NVLS_ENABLE=0
d=/tmp/multi-data; mkdir -p $d
n=193474
{ $bin dataset -b -s 21 --f32-bounds 0.5:1.5 -g "[$n]f32"
  $bin dataset -b -s 22 --i32-bounds 0:$((n - 1)) -g "[4][$n]i32"
  $bin dataset -b -s 23 --f32-bounds -1:1 -g "[3][4][$n]f32"; } > "$d/cfd.in"
for round in 1 2 3 4; do
  for g in 1 2 4; do
    $bin bench --backend cuda --gpus $g --runs 5 --budget 20 --input $d/cfd.in -e main \
      --json $d/cfd-$g-$round.json .gpu/benchmarks/rodinia/cfd/cfd.fut > /dev/null 2>&1
    python3 -c "import json,statistics,sys
d=json.load(open(sys.argv[1]))
r=[x for e in d.values() for ds in e['datasets'].values() for x in ds['runtimes']]
print('cfd round $round G=$g median', statistics.median(r), 'runs', r)" $d/cfd-$g-$round.json
  done
done
date -u
OUT=$OUT/g2 TIME_LIMIT=300 TEST_TIMEOUT=60 BASE=bench/results/cuda-corpus-g1-2026-11-26.json.gz bash .gpu/corpus-run.sh 2 2>&1 | head -40
gzip -f $OUT/g2/*.json $OUT/g2/*.log 2>/dev/null
rm -rf $OUT/g2/files
date -u
