#!/usr/bin/env bash
# Issue 27 on one GPU, from the repository root with futhark-rs in .gpu/bin (gzipped) and the
# benchmarks in .gpu/bench (LocVolCalib.fut, its data); results go to $OUT. Each step runs
# under `timeout` (a hung kernel must not eat the call). Parts (all by default):
#  check  LocVolCalib's small, medium and large against their .out files with the one-kernel
#         versions on; the micro-benchmarks' entries on the GPU against the CPU twin.
#  lvc    LocVolCalib: the kernels before issue 27 (futhark-rs-base, FUTHARK_INTRA=0), this
#         build without intra-block programs, and this build, interleaved twice; profiles.
#  corpus the corpus programs that have intra-block programs (.gpu/intra-list.txt, paths
#         in .gpu/corpus): `test --mode cuda` with the one-kernel versions off, then on.
#  micro  intra.fut (multi-stage rows) and soacs.fut (seed 002's one-SOAC rows, FUTHARK_INTRA=all):
#         the ordinary kernels (FUTHARK_INTRA_KERNEL=0), then the one-kernel versions with the
#         automatic q and q = 1, 2, 4, 8 (FUTHARK_INTRA_Q).
set -uo pipefail
parts="${*:-check lvc micro}"
export FUTHARK_INTRA_KERNEL=1  # the one-kernel versions (the default since session 22)
bin=.gpu/bin
for z in "$bin"/*.gz; do [[ -e $z ]] && gunzip -f "$z"; done
chmod +x "$bin"/*
f=$bin/futhark-rs
out="${OUT:-/tmp/intra-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee -a "$out/gpus.txt"
date -u | tee -a "$out/gpus.txt"
lvc=.gpu/bench/LocVolCalib.fut
if [[ $parts == *check* ]]; then
  echo "== correctness"
  $f test --mode cuda --gpus 1 --timeout 120 "$lvc" 2>&1 | tail -4 | tee "$out/lvc-test.txt"
  for fe in intra.fut:scan_map intra.fut:big_add soacs.fut:row_map soacs.fut:row_reduce \
            soacs.fut:row_scan soacs.fut:row_centre; do
    file=bench/intrablock/${fe%%:*} e=${fe##*:}
    for shape in "[1000][256]i32" "[300][1000]i32" "[7][4096]i32" "[5][3]i32" "[70][5000]i32" "[3][70000]i32"; do
      $f dataset -g "$shape" --i32-bounds=-100000:100000 > /tmp/in.txt
      FUTHARK_INTRA=all timeout 60 $f run --backend cuda --gpus 1 -e $e $file < /tmp/in.txt > /tmp/gpu.txt 2>&1
      timeout 120 $f run --backend ir -e $e $file < /tmp/in.txt > /tmp/cpu.txt 2>&1
      if cmp -s /tmp/gpu.txt /tmp/cpu.txt; then echo "$e $shape: equal"; else echo "$e $shape: DIFFER"; head -c 300 /tmp/gpu.txt; fi
    done
  done 2>&1 | tee "$out/micro-check.txt"
fi
if [[ $parts == *lvc* ]]; then
  # base: .gpu/bin/futhark-rs-base (a build without forward-scratch) with FUTHARK_INTRA=0,
  # the kernels before issue 27; scratch: this build with FUTHARK_INTRA=0; intra: this build.
  base=$bin/futhark-rs-base
  echo "== LocVolCalib"
  for round in 1 2; do
    for cfg in base scratch intra; do
      case $cfg in
        base) [[ -x $base ]] || continue; cmd=(env FUTHARK_INTRA=0 "$base") ;;
        scratch) cmd=(env FUTHARK_INTRA=0 "$f") ;;
        intra) cmd=("$f") ;;
      esac
      timeout 120 "${cmd[@]}" bench --backend cuda --gpus 1 --runs 10 --json "$out/lvc-$cfg-r$round.json" "$lvc" 2>&1 | tail -4 | sed "s/^/$cfg r$round: /"
    done
  done | tee "$out/lvc-bench.txt"
  for cfg in base intra; do
    case $cfg in
      base) [[ -x $base ]] || continue; cmd=(env FUTHARK_INTRA=0 "$base") ;;
      intra) cmd=("$f") ;;
    esac
    timeout 90 "${cmd[@]}" bench --backend cuda --gpus 1 --runs 3 --profile -e main \
      --input .gpu/bench/LocVolCalib-data/large.in "$lvc" > "$out/lvc-profile-$cfg.txt" 2>&1
  done
fi
if [[ $parts == *corpus* ]]; then
  echo "== corpus"
  (cd .gpu/corpus && for k in 0 1; do
    FUTHARK_INTRA_KERNEL=$k timeout ${CORPUS_S:-280} ../bin/futhark-rs test --mode cuda --gpus 1 --timeout 60 -j 8 \
      --json "$out/corpus-kernel$k.json" $(cat ../intra-list.txt) 2>&1 | tail -3 | sed "s/^/kernel=$k: /"
  done) | tee "$out/corpus.txt"
fi
if [[ $parts == *micro* ]]; then
  echo "== micro"
  for prog in intra soacs; do
    p=bench/intrablock/$prog.fut
    export FUTHARK_INTRA=all
    FUTHARK_INTRA_KERNEL=0 timeout 120 $f bench --backend cuda --gpus 1 --runs 10 --json "$out/$prog-sep.json" $p 2>&1 | grep -v '^bench:' | sed "s/^/sep: /"
    timeout 120 $f bench --backend cuda --gpus 1 --runs 10 --json "$out/$prog-auto.json" $p 2>&1 | grep -v '^bench:' | sed "s/^/auto: /"
    for q in ${QS:-1 2 4 8}; do
      FUTHARK_INTRA_Q=$q timeout 120 $f bench --backend cuda --gpus 1 --runs 10 --json "$out/$prog-q$q.json" $p 2>&1 | grep -v '^bench:' | sed "s/^/q=$q: /"
    done
  done | tee "$out/micro-bench.txt"
fi
