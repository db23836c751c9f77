#!/usr/bin/env bash
# Session 10, call 2: after call 1's findings — scalar uploads no longer drain the queue
# (memsets), launches untimed unless --profile, the split path no longer clones its piece
# programs per launch (host_overhead: 26 -> 6 ms of bookkeeping per LocVolCalib run on 2
# devices), copies ordered per buffer. LocVolCalib's tests on 2 and 4 GPUs, its timelines
# again, then the whole set on 1, 2, 4 GPUs (timed without --profile).
set -u
date -u
bin=.gpu/bin/futhark-rs
B=.gpu/benchmarks
L=$B/finpar/LocVolCalib.fut
LI=$B/finpar/LocVolCalib-data/large.in
T=$OUT/traces
mkdir -p "$T"
export NCCL_NVLS_ENABLE=0
echo "== LocVolCalib's own tests"
for g in 1 2 4; do
  for s in auto always; do
    [[ $g == 1 && $s == always ]] && continue
    timeout 200 $bin test --mode cuda --gpus $g --split $s --timeout 100 $L 2>&1 | tail -1
  done
done
for g in 1 2 4; do
  FUTHARK_TRACE="$T/lvc-g$g" timeout 150 $bin bench --backend cuda --gpus $g --runs 5 --budget 20 \
    --input $LI -e main $L > "$T/lvc-g$g.txt" 2>&1
  echo "== traced lvc-g$g: $(grep -o 'median [0-9]*' "$T/lvc-g$g.txt")"
  python3 .gpu/trace_gaps.py "$T/lvc-g$g" --from 0.6 --top 4 2>&1 | head -24
done
gzip -f "$T"/*.tsv
date -u
RUNS=10 BENCH_TIMEOUT=100 bash .gpu/device-run.sh bench 1 2 4
date -u
mv "$OUT/bench-logs.tgz" "$T/" 2>/dev/null
tar czf "$OUT/traces.tgz" -C "$OUT" traces && rm -rf "$T"
date -u
