#!/usr/bin/env bash
# Session 9, call 2 (same build as call 1): the --gpus 2 --split always corpus files session 7
# did not start (two groups of two GPUs), then side by side: the files whose cases timed out
# with 2 GPUs in session 7 (compile-bound; NVRTC now compiles a program's kernels side by
# side) on GPUs 0,1, and --gpus 4 --split always over the corpus with 16 workers until the
# time limit. Verdicts are compared with the --gpus 1 report of session 6.
set -u
date -u
BASE=bench/results/cuda-corpus-g1-2026-11-26.json.gz
mkdir -p .gpu/prev-g2 && tar xzf bench/results/cuda-corpus-g2-split-2026-11-26-s7.tgz -C .gpu/prev-g2
OUT=$OUT/g2 TIME_LIMIT=${TL2:-150} bash .gpu/corpus-run.sh 2 .gpu/prev-g2 2>&1 | tail -5
date -u
C=.gpu/corpus
(
  CUDA_VISIBLE_DEVICES=0,1 timeout 220 .gpu/bin/futhark-rs test --mode cuda --gpus 2 --split always --timeout 30 -j 8 \
    --json "$OUT/g2-timeouts.json" $C/ad/hist_add.fut $C/ad/nested2.fut $C/ad/reducebyindexgenbenchtests.fut \
    $C/ad/reducevec0.fut $C/ad/scan4.fut $C/ad/scanvecbenchtests.fut $C/map_tridag_par.fut $C/reg-tiling/sgemm.fut \
    > "$OUT/g2-timeouts.log" 2>&1
  echo "timeouts: exit $?: $(tail -1 "$OUT/g2-timeouts.log")"
) &
OUT=$OUT/g4 JOBS=16 TIME_LIMIT=${TL4:-200} bash .gpu/corpus-run.sh 4 2>&1 | tail -3
wait
date -u
echo "== --gpus 2: session 7's reports, this call's remainder and the timed-out files, against --gpus 1"
python3 .gpu/corpus_files.py compare $BASE .gpu/prev-g2/*.json.gz "$OUT"/g2/cuda-g2-*.json.gz "$OUT/g2-timeouts.json" 2>&1 | tail -40
echo "== --gpus 4 against --gpus 1"
python3 .gpu/corpus_files.py compare $BASE "$OUT"/g4/cuda-g4-*.json.gz 2>&1 | tail -20
gzip -f "$OUT/g2-timeouts.json"
date -u
