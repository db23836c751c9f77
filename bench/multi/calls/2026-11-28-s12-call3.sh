#!/usr/bin/env bash
# Session 12, call 3 (call 2's build): LocVolCalib with the warp-per-segment scans on and off
# (FUTHARK_WARP_SCAN), two interleaved rounds on 1, 2, 4 GPUs, the scans' per-kernel scaling;
# soacs/scan9.fut (100M elements in segments of 100: the warp entry) alone with --gpus 1 and
# --gpus 4 --split always (it timed out at 60 s in call 2's loaded corpus run).
set -u
date -u
bin=.gpu/bin/futhark-rs
export NCCL_NVLS_ENABLE=0
for rep in 1 2; do
  for ws in 1 0; do
    o=$OUT/lvc-ws$ws-r$rep
    OUT=$o FUTHARK_WARP_SCAN=$ws RUNS=10 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 1 2 4 \
      | cut -f2-3 | tr '\n' ' ' | sed "s/^/ws=$ws round $rep: /"; echo
    python3 .gpu/kernel_scaling.py /tmp/multi-data/LocVolCalib*-g1.err /tmp/multi-data/LocVolCalib*-g2.err \
      /tmp/multi-data/LocVolCalib*-g4.err > "$o/scaling.txt" 2>&1
    [[ $rep == 1 ]] && grep -E "scan_6246|scan_6258|sum over" "$o/scaling.txt" | cut -c1-110
    [[ $rep == 1 ]] && python3 .gpu/profile_summary.py 3 /tmp/multi-data/LocVolCalib*[124].err 2>&1 | grep -o "kernel ms per run {[^}]*}"
    rm -f "$o/gpus.txt" "$o/bench-logs.tgz"
  done
done
date -u
for g in 1 4; do
  s0=$(date +%s)
  timeout 200 $bin test --mode cuda --gpus $g --split always --timeout 180 .gpu/corpus/soacs/scan9.fut 2>&1 | tail -1
  echo "soacs/scan9 --gpus $g: $(( $(date +%s) - s0 )) s"
done
date -u
