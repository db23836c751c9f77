#!/usr/bin/env bash
# Issue 27 on one GPU, from the repository root with futhark-rs in .gpu/bin (gzipped) and the
# benchmarks in .gpu/bench (LocVolCalib.fut, its data); results go to $OUT.
#  1. Correctness: LocVolCalib's small, medium and large against their .out files with the
#     intra-block kernels on; the micro-benchmarks' entries on the GPU against the CPU twin.
#  2. LocVolCalib, intra-block kernels off (FUTHARK_INTRA=0: the kernels of the previous
#     sessions) and on, interleaved twice, same binary.
#  3. bench/intrablock/intra.fut: off, then on with q = 1, 2, 4, 8 (FUTHARK_INTRA_Q).
set -uo pipefail
export FUTHARK_INTRA_KERNEL=1  # the one-kernel version (off by default until checked here)
bin=.gpu/bin
for z in "$bin"/*.gz; do [[ -e $z ]] && gunzip -f "$z"; done
chmod +x "$bin"/*
f=$bin/futhark-rs
out="${OUT:-/tmp/intra-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpus.txt"
date -u | tee -a "$out/gpus.txt"
lvc=.gpu/bench/LocVolCalib.fut
echo "== correctness"
$f test --mode cuda --gpus 1 --timeout 120 "$lvc" 2>&1 | tail -4 | tee "$out/lvc-test.txt"
for e in scan_map big_add; do
  for shape in "[1000][256]i32" "[300][1000]i32" "[7][4096]i32" "[5][3]i32" "[70][5000]i32"; do
    $f dataset -g "$shape" --i32-bounds=-100000:100000 > /tmp/in.txt
    $f run --backend cuda --gpus 1 -e $e bench/intrablock/intra.fut < /tmp/in.txt > /tmp/gpu.txt 2>&1
    $f run --backend ir -e $e bench/intrablock/intra.fut < /tmp/in.txt > /tmp/cpu.txt 2>&1
    if cmp -s /tmp/gpu.txt /tmp/cpu.txt; then echo "$e $shape: equal"; else echo "$e $shape: DIFFER"; head -c 300 /tmp/gpu.txt; fi
  done
done 2>&1 | tee "$out/micro-check.txt"
echo "== LocVolCalib"
for round in 1 2; do
  for intra in 0 1; do
    FUTHARK_INTRA=$intra $f bench --backend cuda --gpus 1 --runs 10 --json "$out/lvc-intra$intra-r$round.json" "$lvc" 2>&1 | tail -4 | sed "s/^/intra=$intra r$round: /"
  done
done | tee "$out/lvc-bench.txt"
FUTHARK_INTRA=1 $f bench --backend cuda --gpus 1 --runs 3 --profile "$lvc" > "$out/lvc-profile.txt" 2>&1
echo "== micro"
{
  FUTHARK_INTRA=0 $f bench --backend cuda --gpus 1 --runs 10 --json "$out/micro-off.json" bench/intrablock/intra.fut 2>&1 | sed "s/^/off: /"
  for q in 1 2 4 8; do
    FUTHARK_INTRA_Q=$q $f bench --backend cuda --gpus 1 --runs 10 --json "$out/micro-q$q.json" bench/intrablock/intra.fut 2>&1 | sed "s/^/q=$q: /"
  done
} | tee "$out/micro-bench.txt"
