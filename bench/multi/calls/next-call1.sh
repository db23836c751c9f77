#!/usr/bin/env bash
# Prepared in session 8 (no device time was left then) for the next session's first call,
# on a 2- or 4-GPU machine with the bundle of this build in .gpu/:
#  1. LocVolCalib with and without loop promotion (FUTHARK_PROMOTE_LOOPS=1) on 1, 2 (and 4)
#     GPUs; the kernel table of each shows what map_5934 became.
#  2. The other rows of the benchmark set with promotion on, to see nothing else moves.
#  3. NVRTC compile time on the device's 16 cores (compile_bench, one thread against side
#     by side) for the AD programs that timed out with --gpus 2 --split always.
#  4. The cases of the --gpus 2 --split always corpus that differed or were not reached in
#     session 7 (list in .gpu/rem-g2.txt, made by corpus_files.py), against the --gpus 1 report.
set -u
date -u
gs="1 2"; [[ $(nvidia-smi -L | wc -l) -ge 4 ]] && gs="1 2 4"
echo "== LocVolCalib, promotion off / on"
OUT=$OUT/lvc ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench $gs
OUT=$OUT/lvc-p FUTHARK_PROMOTE_LOOPS=1 ONLY='LocVolCalib' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench $gs
for f in /tmp/multi-data/LocVolCalib*-g1*.err; do echo "== $f"; grep -E "map_59(12|17|34)" "$f" | cut -c1-150; done
echo "== the rest of the set with promotion on"
OUT=$OUT/rest-p FUTHARK_PROMOTE_LOOPS=1 ONLY='mandelbrot 16000² depth 1000|tunnel|nbody|make \+ 10' SKIP_OVERHEAD=1 bash .gpu/device-run.sh bench 1 2
echo "== NVRTC side by side"
[[ -x .gpu/bin/compile_bench ]] && .gpu/bin/compile_bench .gpu/corpus/ad/nested2.fut .gpu/corpus/ad/scan4.fut .gpu/corpus/ad/reducevec0.fut
date -u
echo "== --gpus 2 --split always: the files session 7 did not reach"
mkdir -p .gpu/prev-g2 && tar xzf bench/results/cuda-corpus-g2-split-2026-11-26-s7.tgz -C .gpu/prev-g2
OUT=$OUT/g2 TIME_LIMIT=200 BASE=bench/results/cuda-corpus-g1-2026-11-26.json.gz bash .gpu/corpus-run.sh 2 .gpu/prev-g2
echo "== --gpus 2 --split always: the files whose cases timed out in session 7 (compile time)"
C=.gpu/corpus
CUDA_VISIBLE_DEVICES=0,1 timeout 200 .gpu/bin/futhark-rs test --mode cuda --gpus 2 --split always --timeout 30 -j 8 \
  --json "$OUT/g2-timeouts.json" $C/ad/hist_add.fut $C/ad/nested2.fut $C/ad/reducebyindexgenbenchtests.fut \
  $C/ad/reducevec0.fut $C/ad/scan4.fut $C/ad/scanvecbenchtests.fut $C/map_tridag_par.fut $C/reg-tiling/sgemm.fut \
  > "$OUT/g2-timeouts.log" 2>&1
echo "exit $?: $(tail -1 "$OUT/g2-timeouts.log")"
python3 .gpu/corpus_files.py compare bench/results/cuda-corpus-g1-2026-11-26.json.gz "$OUT/g2-timeouts.json" | head -20
gzip -f "$OUT/g2-timeouts.json"
date -u
