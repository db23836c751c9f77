#!/usr/bin/env bash
# Session 9, call 3: loop promotion on by default, now also for loops of different bounds
# (LocVolCalib's map_6182: 256 threads each writing three rows, 13.6 ms a run in call 1);
# split launches report the host time spent issuing them. LocVolCalib on 1, 2, 4 GPUs, the
# 1-GPU baseline without promotion, its own tests on 1, 2, 4 GPUs; then --gpus 4 --split
# always over the corpus from the end of the file list (call 2 reached 514 cases from the
# start), compared with the --gpus 1 report.
set -u
date -u
OUT=$OUT/lvc RUNS=10 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 1 2 4
OUT=$OUT/lvc-off FUTHARK_PROMOTE_LOOPS=0 RUNS=10 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 1
python3 .gpu/profile_summary.py 11 /tmp/multi-data/LocVolCalib*.err
for g in 1 2 4; do echo "LocVolCalib tests, --gpus $g: $(.gpu/bin/futhark-rs test --mode cuda --gpus $g .gpu/benchmarks/finpar/LocVolCalib.fut 2>&1 | tail -1)"; done
date -u
find .gpu/corpus -name '*.fut' | sort -r > /tmp/rev.txt
xargs -a /tmp/rev.txt .gpu/bin/futhark-rs test --mode cuda --gpus 4 --split always --time-limit "${TL4:-230}" \
  --timeout 30 -j 16 --json "$OUT/g4-rev.json" > "$OUT/g4-rev.log" 2>&1
echo "--gpus 4 from the end: exit $?: $(tail -1 "$OUT/g4-rev.log")"
python3 .gpu/corpus_files.py compare bench/results/cuda-corpus-g1-2026-11-26.json.gz "$OUT/g4-rev.json" | head -40
gzip -f "$OUT/g4-rev.json" "$OUT/g4-rev.log"
tar czf "$OUT/lvc.tgz" -C "$OUT" lvc lvc-off && rm -rf "$OUT/lvc" "$OUT/lvc-off"
date -u
