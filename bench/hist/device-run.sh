#!/usr/bin/env bash
# Issue 24's histogram benchmark on a GPU machine, run from the repository root with the
# bundle of `BUNDLE=cli bench/safety/bundle.sh` in .gpu/ (carry `.gpu`). Writes
# hist-checks.txt (prims_bench --only hist), hist.md, hist.json and hist-log.txt to
# $OUT. HIST_ONLY=SUBSTRING limits the datasets, HIST_LOG_N the size (default 28),
# HIST_RUNS the timed runs, HIST_DEADLINE_S when no further dataset is started; FUTHARK_HIST_* options reach futhark-rs.
set -uo pipefail
bin=.gpu/bin
for z in "$bin"/*.gz; do [[ -e $z ]] && gunzip -f "$z"; done
out="${OUT:-/tmp/hist-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv > "$out/gpus.txt" 2>&1
export FUTHARK_GPUS=1
# The GPU checks of every histogram update kind (packed CAS, locks, float trick, passes).
if [[ -x $bin/prims_bench && -z "${SKIP_CHECKS:-}" ]]; then
  timeout 240 $bin/prims_bench --only hist > "$out/hist-checks.txt" 2>&1
  echo "prims_bench --only hist: exit $?"; tail -25 "$out/hist-checks.txt"
fi
FUTHARK_RS="$bin/futhark-rs" python3 bench/hist/run.py "$out"
