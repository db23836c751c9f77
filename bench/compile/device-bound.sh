#!/usr/bin/env bash
# Issue 25's compile bound on a GPU machine, from the repository root with the binaries in
# .gpu/bin (gzipped) and the corpus in .gpu/corpus; results go to $OUT.
#  1. The heaviest programs (the AD scan tests) and the AD programs with existential sizes
#     through `test --mode cuda`, each with an empty kernel cache, timed: compile and run
#     as a user meets them (modules named by content, each distinct one compiled once).
#  2. compile_bench over the whole corpus on every core (front end + NVRTC per program,
#     distinct modules only), the AD tests first so a cut at the limit loses small ones.
set -uo pipefail
bin=.gpu/bin
for z in "$bin"/*.gz; do [[ -e $z ]] && gunzip -f "$z"; done
chmod +x "$bin"/*
out="${OUT:-/tmp/bound-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpus.txt"
nproc
deadline=$(( SECONDS + ${BUDGET:-520} ))
c=.gpu/corpus
for f in ad/scan9 ad/scangenbenchtests ad/scan8 ad/concat0 ad/issue1879 ad/issue2239 ad/scatter5 issue2522; do
  cache=$(mktemp -d)
  start=$(date +%s%N)
  XDG_CACHE_HOME=$cache timeout 150 $bin/futhark-rs test --mode cuda --timeout 120 "$c/$f.fut" 2>&1 | tail -2 | head -1
  echo "$f: exit ${PIPESTATUS[0]}, $(( ($(date +%s%N) - start) / 1000000 )) ms wall (empty kernel cache)"
done 2>&1 | tee "$out/heavy.txt"
files=$( (ls $c/ad/*.fut; find $c -name '*.fut' -not -path "$c/ad/*" | sort) | awk -v from="${FROM:-}" 'from == "" || $0 > from')
left=$(( deadline - SECONDS ))
echo "== compile_bench --parallel-only (${left} s left)"
timeout $(( left > 30 ? left - 10 : 20 )) $bin/compile_bench --threads 16 --parallel-only $files \
  > "$out/compile.tsv" 2> "$out/compile.err"
echo "exit $?"; wc -l < "$out/compile.tsv"; sort -t$'\t' -k5 -g -r "$out/compile.tsv" | head -12
