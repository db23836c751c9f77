#!/usr/bin/env bash
# Session 9, call 6 (build fa5447d): --gpus 4 --split always over the middle of the corpus's
# file list (.gpu/mid-g4.txt: the files after those call 2 reached from the start, estimated
# from the --gpus 1 report's case counts, and before those call 3 reached from the end).
set -u
date -u
xargs -a .gpu/mid-g4.txt .gpu/bin/futhark-rs test --mode cuda --gpus 4 --split always --time-limit "${TL4:-270}" \
  --timeout 30 -j 20 --json "$OUT/g4-mid.json" > "$OUT/g4-mid.log" 2>&1
echo "--gpus 4, middle files: exit $?: $(tail -1 "$OUT/g4-mid.log")"
python3 .gpu/corpus_files.py compare bench/results/cuda-corpus-g1-2026-11-26.json.gz "$OUT/g4-mid.json" | head -30
gzip -f "$OUT/g4-mid.json" "$OUT/g4-mid.log"
date -u
