#!/usr/bin/env bash
# `futhark-rs test --mode cuda --gpus G` over the corpus on a machine with several GPUs, as
# fast as one device call allows: the files are dealt round-robin to floor(GPUs / G) groups
# of G GPUs each, which run side by side (CUDA_VISIBLE_DEVICES per group), each with its
# share of the workers and a --time-limit so that the reports are written before the call
# ends. With G > 1 every kernel is split (--split always).
#
#   bash .gpu/corpus-run.sh G [PREVIOUS_DIR]
#
# PREVIOUS_DIR: the $OUT of an earlier call of this script with the same G; only the files
# that call did not start are run (a continuation). Reports: $OUT/cuda-gG-N.json.gz; the
# merged comparison with a --gpus 1 report (BASE=path to its .json or .json.gz) is printed.
# Environment: TIME_LIMIT (default 450 s), TEST_TIMEOUT (30 s), JOBS (3/4 of the cores).
set -uo pipefail
g="${1:?G}"
prev="${2:-}"
here="$(dirname "$0")"
bin=.gpu/bin/futhark-rs
out="${OUT:-/tmp/corpus-out}"
mkdir -p "$out"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
groups=$(( gpus / g ))
(( groups < 1 )) && { echo "corpus-run: $gpus GPU(s), fewer than G = $g"; exit 2; }
jobs="${JOBS:-$(( $(nproc) * 3 / 4 ))}"
each=$(( jobs / groups )); (( each < 1 )) && each=1
split=""; (( g > 1 )) && split="--split always"
python3 "$here/corpus_files.py" deal "$groups" .gpu/corpus ${prev:+"$prev"} "$out/files" || exit 2
s0=$(date +%s)
for ((k = 0; k < groups; k++)); do
  devs=$(seq -s, $(( k * g )) $(( k * g + g - 1 )))
  (
    # shellcheck disable=SC2086
    CUDA_VISIBLE_DEVICES=$devs xargs -a "$out/files/$k.txt" $bin test --mode cuda --gpus "$g" $split \
      --time-limit "${TIME_LIMIT:-450}" --timeout "${TEST_TIMEOUT:-30}" -j "$each" \
      --json "$out/cuda-g$g-$k.json" > "$out/cuda-g$g-$k.log" 2>&1
    echo "group $k (GPUs $devs): $(tail -1 "$out/cuda-g$g-$k.log") in $(( $(date +%s) - s0 )) s"
  ) &
done
wait
[[ -n "${BASE:-}" ]] && python3 "$here/corpus_files.py" compare "$BASE" "$out"/cuda-g"$g"-*.json ${prev:+"$prev"/cuda-g"$g"-*.json.gz}
gzip -f "$out"/cuda-g"$g"-*.json "$out"/cuda-g"$g"-*.log
