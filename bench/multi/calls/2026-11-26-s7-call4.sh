#!/usr/bin/env bash
# Session 7, call 4 (build bfefc0d): the --gpus 2 --split always corpus files call 3 did not
# start (its reports carried in .gpu/prev-c2), merged comparison with the --gpus 1 report.
set -u
date -u
OUT=$OUT/c2b BASE=bench/results/cuda-corpus-g1-2026-11-26.json.gz TIME_LIMIT=${TL2:-280} bash .gpu/corpus-run.sh 2 .gpu/prev-c2 2>&1 | tail -40
tar czf "$OUT/corpus.tgz" -C "$OUT" c2b && rm -rf "$OUT/c2b"
date -u
