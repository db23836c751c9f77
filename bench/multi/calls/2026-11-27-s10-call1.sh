#!/usr/bin/env bash
# Session 10, call 1: where LocVolCalib's GPUs sit idle. FUTHARK_TRACE timelines (per launch:
# host call and return, GPU start and end, one clock) of LocVolCalib large on 1, 2 and 4
# GPUs, with copies between GPUs ordered per buffer (new default) and the old way
# (FUTHARK_PEER_ORDER=both: the source GPU waits for every copy out of it); trace_gaps.py
# sorts each GPU's idle time into host-late / waiting-for-another-GPU / other. Then the
# program's own tests and the other rows' quick checks with the new ordering.
set -u
date -u
nvidia-smi -L
bin=.gpu/bin/futhark-rs
B=.gpu/benchmarks
L=$B/finpar/LocVolCalib.fut
T=$OUT/traces
mkdir -p "$T"
export NCCL_NVLS_ENABLE=0
echo "== LocVolCalib's own tests (small/medium/large against .out), new ordering"
for g in 2 4; do
  for s in auto always; do
    timeout 200 $bin test --mode cuda --gpus $g --split $s --timeout 100 $L 2>&1 | tail -2
  done
done
run() { # tag prog entry input gpus [env...]
  local tag=$1 prog=$2 entry=$3 input=$4 g=$5; shift 5
  env "$@" FUTHARK_TRACE="$T/$tag" timeout 150 $bin bench --backend cuda --gpus "$g" --runs 5 --budget 20 \
    --profile --input "$input" -e "$entry" --json "$T/$tag.json" "$prog" > "$T/$tag.txt" 2> "$T/$tag.err"
  echo "== $tag (exit $?): $(grep -o 'median [0-9]*' "$T/$tag.txt")"
  python3 .gpu/trace_gaps.py "$T/$tag" --from 0.6 --top 6 2>&1 | head -40
}
LI=$B/finpar/LocVolCalib-data/large.in
run lvc-g1 $L main $LI 1
run lvc-g2 $L main $LI 2
run lvc-g2-both $L main $LI 2 FUTHARK_PEER_ORDER=both
run lvc-g4 $L main $LI 4
run lvc-g4-both $L main $LI 4 FUTHARK_PEER_ORDER=both
run lvc-g2-always $L main $LI 2 FUTHARK_SPLIT=always
date -u
d=/tmp/multi-data; mkdir -p $d
echo "16000 16000 -0.7f32 0f32 3.067f32 1000 16f32" > "$d/mandel1000.in"
{ echo "1i32 50f32 1f32"; for s in 11 12 13 14 15 16 17; do $bin dataset -b -s $s -g '[100000]f32'; done; } > "$d/nbody.in"
echo "1073741824i64 10" > "$d/res10.in"
for g in 1 2 4; do
  run nbody-g$g $B/accelerate/nbody/nbody.fut main $d/nbody.in $g
done
for g in 1 2; do
  run res10-g$g .gpu/resident.fut reduce_resident $d/res10.in $g
done
run mandel-g2 $B/accelerate/mandelbrot/mandelbrot.fut main $d/mandel1000.in 2
gzip -f "$T"/*.tsv
tar czf "$OUT/traces.tgz" -C "$OUT" traces && rm -rf "$T"
date -u
