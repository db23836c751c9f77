#!/usr/bin/env bash
# The multi-GPU runs of issues 6 and 9, on a GPU machine, from the repository root with the
# bundle of bench/multi/bundle.sh in .gpu/ (carried: the machine has no Rust); run the copy
# the bundle holds: `bash .gpu/device-run.sh ...`.
#
#   bash bench/multi/device-run.sh correctness [G]  test --mode cuda with --gpus 1 and with
#                                                   --gpus G --split always over the corpus,
#                                                   compared case by case (G defaults to 2);
#                                                   SHARD=K/N tests part K of N of the files
#   bash bench/multi/device-run.sh bench [G...]     T(1)/T(G) for the benchmark set (timed without
#                                                   --profile, then 2 runs with it for the .err; RUNS=k: runs per row, cfd 3; SPLIT=always|never
#                                                   overrides the cost model; ONLY=regex picks rows;
#                                                   FUTHARK_PROMOTE_LOOPS/FUTHARK_BALANCE tag the rows), the
#                                                   1-GPU overhead against the single-GPU
#                                                   binary of before, and peer bandwidth
#
# Results go to $OUT (or /tmp/multi-out).
set -uo pipefail
mode="${1:?correctness or bench}"
shift
here="$(dirname "$0")"
bin=${BIN:-.gpu/bin/futhark-rs}
out="${OUT:-/tmp/multi-out}"
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
{
  date -u
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
  nvidia-smi topo -m
} > "$out/gpus.txt" 2>&1
jobs=$(( $(nproc) * 3 / 4 ))

case "$mode" in
correctness)
  g="${1:-2}"
  runs=("1|" "$g|--split always")
  # SPLIT_ONLY=1: only the split run (compare with an earlier 1-GPU report).
  [[ -n "${SPLIT_ONLY:-}" ]] && runs=("$g|--split always")
  # The runs go side by side (half the CPU each), each cut off at RUN_LIMIT seconds so the
  # results come back inside one device call.
  each=$(( jobs / ${#runs[@]} ))
  # SEQ=1: one run after the other with every worker (the second reuses the first's NVRTC
  # cache), each cut off at RUN_LIMIT.
  [[ -n "${SEQ:-}" ]] && each=$jobs
  for run in "${runs[@]}"; do
    IFS='|' read -r n extra <<<"$run"
    (
      s0=$(date +%s)
      # shellcheck disable=SC2086
      # SHARD=K/N: only that part of the corpus (a whole run no longer fits one device call).
      [[ -n "${SHARD:-}" ]] && extra="$extra --shard $SHARD"
      # TIME_LIMIT: no file starts after that many seconds (the report is still written).
      [[ -n "${TIME_LIMIT:-}" ]] && extra="$extra --time-limit $TIME_LIMIT"
      timeout "${RUN_LIMIT:-520}" $bin test --mode cuda --gpus "$n" $extra --timeout "${TEST_TIMEOUT:-60}" \
        -j "$each" --json "$out/cuda-g$n.json" .gpu/corpus > "$out/cuda-g$n.log" 2>&1
      echo "--gpus $n $extra: exit $?: $(tail -1 "$out/cuda-g$n.log") in $(( $(date +%s) - s0 )) s"
    ) &
    [[ -n "${SEQ:-}" ]] && wait
  done
  wait
  if [[ -f "$out/cuda-g1.json" ]]; then
    python3 "$here/compare_runs.py" "$out/cuda-g1.json" "$out/cuda-g$g.json" > "$out/compare.txt"
    echo "compare exit $?"
    head -30 "$out/compare.txt"
  fi
  # Keep the transfer small: the case lists are in the JSON files, gzip them.
  gzip -f "$out"/cuda-g*.json
  ;;
bench)
  gs=("$@")
  [[ ${#gs[@]} -eq 0 ]] && gs=(1 2)
  B=.gpu/benchmarks
  d=/tmp/multi-data
  mkdir -p "$d"
  echo "16000 16000 -0.7f32 0f32 3.067f32 1000 16f32" > "$d/mandel1000.in"
  echo "16000 16000 -0.7f32 0f32 3.067f32 100 16f32" > "$d/mandel100.in"
  echo "8000 8000 -0.7f32 0f32 3.067f32 100 16f32" > "$d/mandel8k.in"
  echo "10f32 16000 16000" > "$d/tunnel.in"
  { echo "1i32 50f32 1f32"; for s in 11 12 13 14 15 16 17; do $bin dataset -b -s $s -g '[100000]f32'; done; } > "$d/nbody.in"
  n=193474
  { $bin dataset -b -s 21 --f32-bounds 0.5:1.5 -g "[$n]f32"
    $bin dataset -b -s 22 --i32-bounds 0:$((n - 1)) -g "[4][$n]i32"
    $bin dataset -b -s 23 --f32-bounds -1:1 -g "[3][4][$n]f32"; } > "$d/cfd.in"
  echo "1073741824i64 0" > "$d/res0.in"
  echo "1073741824i64 10" > "$d/res10.in"
  rows=(
    "mandelbrot 16000² depth 1000|$B/accelerate/mandelbrot/mandelbrot.fut|main|$d/mandel1000.in"
    "mandelbrot 16000² depth 100|$B/accelerate/mandelbrot/mandelbrot.fut|main|$d/mandel100.in"
    "tunnel 10f32 16000²|$B/accelerate/tunnel/tunnel.fut|main|$d/tunnel.in"
    "nbody 100k bodies|$B/accelerate/nbody/nbody.fut|main|$d/nbody.in"
    "LocVolCalib large|$B/finpar/LocVolCalib.fut|main|$B/finpar/LocVolCalib-data/large.in"
    "cfd 193K elements|$B/rodinia/cfd/cfd.fut|main|$d/cfd.in|3"
    "resident reduce: make 2^30|$here/resident.fut|reduce_resident|$d/res0.in"
    "resident reduce: make + 10 reduces|$here/resident.fut|reduce_resident|$d/res10.in"
    "resident map: make 2^30|$here/resident.fut|map_resident|$d/res0.in"
    "resident map: make + 10 maps|$here/resident.fut|map_resident|$d/res10.in"
  )
  : > "$out/bench.tsv"
  for row in "${rows[@]}"; do
    IFS='|' read -r name prog entry input runs <<<"$row"
    # ONLY=regex: just the rows whose name matches (a short run).
    [[ -n "${ONLY:-}" && ! "$name" =~ $ONLY ]] && continue
    first_failed=""
    for g in "${gs[@]}"; do
      # A program that failed (or ran out of time) on the first G is not run on the others.
      if [[ -n "$first_failed" ]]; then
        printf '%s\t%s\t\t\t\tskipped: failed with G = %s\n' "$name" "$g" "${gs[0]}" | tee -a "$out/bench.tsv"
        continue
      fi
      tag="$(echo "$name" | tr -c 'a-zA-Z0-9' '_')-g$g${SPLIT:+-$SPLIT}${FUTHARK_BALANCE:+-b$FUTHARK_BALANCE}${FUTHARK_PROMOTE_LOOPS:+-p$FUTHARK_PROMOTE_LOOPS}"
      # SPLIT=always|never: override the cost model (a comparison row).
      # Timed without --profile (timing every launch costs the host two event records per
      # launch); a second, short run with --profile says what was split and where time went.
      timeout "${BENCH_TIMEOUT:-120}" $bin bench --backend cuda --gpus "$g" ${SPLIT:+--split "$SPLIT"} --runs "${runs:-${RUNS:-5}}" --budget 20 \
        --input "$input" -e "$entry" --json "$d/$tag.json" "$prog" \
        > "$d/$tag.txt" 2> "$d/$tag.timed.err"
      st=$?
      [[ $st -eq 0 ]] && timeout "${BENCH_TIMEOUT:-120}" $bin bench --backend cuda --gpus "$g" ${SPLIT:+--split "$SPLIT"} --runs 2 --budget 20 --profile \
        --input "$input" -e "$entry" "$prog" > /dev/null 2> "$d/$tag.err"
      median=$(python3 -c "import json,statistics,sys
d=json.load(open(sys.argv[1]))
r=[x for e in d.values() for ds in e['datasets'].values() for x in ds['runtimes']]
print(statistics.median(r))" "$d/$tag.json" 2>/dev/null || echo "")
      why=""
      [[ $st -ne 0 ]] && why="exit $st: $(grep -m1 -iE 'error|not supported|failed' "$d/$tag.timed.err" "$d/$tag.txt" | cut -c1-160)"
      [[ $st -ne 0 ]] && first_failed=1
      split="$(grep -c 'split over' "$d/$tag.err")"
      kept="$(grep -c 'kept on gpu0' "$d/$tag.err")"
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$g" "$median" "$split" "$kept" "$why" | tee -a "$out/bench.tsv"
    done
  done
  # The 1-GPU path against the bare one-GPU backend (no multi-GPU layer), same binary,
  # same run, alternating: bench medians. SKIP_OVERHEAD=1 leaves it (and peer_bench) out.
  [[ -n "${SKIP_OVERHEAD:-}" ]] && { tar czf "$out/bench-logs.tgz" -C "$d" --exclude='*.in' . 2>/dev/null; exit 0; }
  for row in "mandelbrot 16000² depth 100|$B/accelerate/mandelbrot/mandelbrot.fut|main|$d/mandel100.in" \
             "tunnel 10f32 16000²|$B/accelerate/tunnel/tunnel.fut|main|$d/tunnel.in" \
             "resident map: make + 10 maps|$here/resident.fut|map_resident|$d/res10.in"; do
    IFS='|' read -r name prog entry input <<<"$row"
    for round in 1 2; do
      for how in bare multi; do
        tag="overhead-$how-$round"
        if [[ $how == bare ]]; then
          FUTHARK_BARE_DEVICE=1 $bin bench --backend cuda --runs 10 --budget 20 --input "$input" -e "$entry" --json "$d/$tag.json" "$prog" > /dev/null 2>&1
        else
          $bin bench --backend cuda --gpus 1 --runs 10 --budget 20 --input "$input" -e "$entry" --json "$d/$tag.json" "$prog" > /dev/null 2>&1
        fi
        median=$(python3 -c "import json,statistics,sys
d=json.load(open(sys.argv[1]))
print(statistics.median([x for e in d.values() for ds in e['datasets'].values() for x in ds['runtimes']]))" "$d/$tag.json" 2>/dev/null)
        printf 'overhead\t%s\t%s\t%s\n' "$name" "$how" "$median" | tee -a "$out/bench.tsv"
      done
    done
  done
  [[ -x .gpu/bin/peer_bench ]] && .gpu/bin/peer_bench > "$out/peer.txt" 2>&1
  tar czf "$out/bench-logs.tgz" -C "$d" --exclude='*.in' . 2>/dev/null
  ;;
esac
