#!/usr/bin/env bash
# Compile latency on a GPU machine (issues 25 and 29), from the repository root with the
# binaries in .gpu/bin (gzipped) and the corpus in .gpu/corpus. Results go to $OUT.
#  1. REPL cells that each need a new kernel, with an empty kernel cache: each entry point
#     compiled as its own unit (FUTHARK_SPLIT_ENTRIES=1) against whole modules (the default),
#     interleaved; :profile says where preparing went (generation, NVRTC, cache, loading).
#  2. A corpus sample through `test --mode cuda` (results against the .fut files' outputs)
#     and the out-of-bounds example: split modules run and report failed checks.
#  3. compile_bench over the whole corpus on every core: front end + NVRTC per program,
#     split units against whole modules (the 10 s bound of issue 25).
set -uo pipefail
bin=.gpu/bin
for z in "$bin"/*.gz; do [[ -e $z ]] && gunzip -f "$z"; done
chmod +x "$bin"/*
out="${OUT:-/tmp/compile-out}"
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpus.txt"
nproc
deadline=$(( SECONDS + ${BUDGET:-520} ))
for round in 1 2; do
  for split in 1 0; do
    cache=$(mktemp -d)
    echo "== round $round, FUTHARK_SPLIT_ENTRIES=$split, empty kernel cache"
    XDG_CACHE_HOME=$cache FUTHARK_SPLIT_ENTRIES=$split FUTHARK_REPL_HISTORY=/dev/null \
      timeout 120 $bin/futhark-repl --backend cuda < bench/compile/cells.txt 2>&1
    echo "exit $?"
  done
done > "$out/repl.txt" 2>&1
grep -E "^==|preparing:|kernels prepared" "$out/repl.txt"
{
  echo "== out-of-bounds example (split modules)"
  echo '[1,2,3,4,5,6,7,8,9,10] 5i64' | $bin/futhark-rs run --backend cuda bench/safety/oob.fut; echo "exit $?"
  echo "== corpus shard 1/${SHARDS:-24}, --mode cuda"
  timeout 100 $bin/futhark-rs test --mode cuda --timeout 30 --shard 1/${SHARDS:-24} --json "$out/shard.json" .gpu/corpus | tail -3
} > "$out/checks.txt" 2>&1
cat "$out/checks.txt" | tail -8
files=$(find .gpu/corpus -name '*.fut' | sort)
for mode in "--split" ""; do
  left=$(( deadline - SECONDS ))
  (( left < 30 )) && { echo "no time left for compile_bench $mode"; break; }
  echo "== compile_bench --parallel-only $mode (${left} s left)"
  timeout $(( left > 240 ? 240 : left )) $bin/compile_bench --threads 16 --parallel-only $mode $files \
    > "$out/compile${mode:+-split}.tsv" 2> "$out/compile${mode:+-split}.err"
  echo "exit $?"; tail -12 "$out/compile${mode:+-split}.tsv"
done
