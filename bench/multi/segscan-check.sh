#!/usr/bin/env bash
# Compares bench/multi/segscan.fut's segmented scans on CUDA (1, 2 and 4 GPUs when there)
# with the interpreter, for segment lengths around every entry's limits. Prints one line per
# case and exits non-zero on any difference. Run from the repository root on a GPU machine
# with the bundle in .gpu/.
set -u
bin=${BIN:-.gpu/bin/futhark-rs}
prog=${PROG:-.gpu/segscan.fut}
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
bad=0
for e in affine sums; do
  for nm in "1 1" "5 16" "7 17" "9 31" "33 32" "64 33" "100 64" "130 100" "257 255" "513 256" \
            "65 257" "3 1000" "1000 256" "4096 200"; do
    set -- $nm
    ref=$(echo "${1}i64 ${2}i64" | $bin run --backend interp -e $e "$prog" | md5sum)
    for g in 1 2 4; do
      [[ $g -gt $ngpu ]] && continue
      got=$(echo "${1}i64 ${2}i64" | $bin run --backend cuda --gpus $g --split always -e $e "$prog" 2>&1 | md5sum)
      if [[ "$got" == "$ref" ]]; then echo "ok   $e n=$1 m=$2 gpus=$g"; else echo "DIFF $e n=$1 m=$2 gpus=$g"; bad=1; fi
    done
  done
done
exit $bad
