#!/usr/bin/env bash
# The benchmark programs of issue 5 on the GPU: for each program and input, run it with
# `--backend cuda` and with the interpreter (or compare with the .out file where one exists),
# compare the results with the test runner's tolerance (bench/gpu/compare_values.py), and
# time the GPU run (wall time of `futhark-rs run`, which includes NVRTC/cache load and the
# transfers; `--profile` gives kernel time). Run from the repository root:
#   bash bench/gpu/programs.sh BIN BENCHMARKS_DIR OUT_DIR
# REF_DIR=dir: take the interpreter's results from dir/TAG.interp where present (made
# beforehand by this script on a machine without a GPU; the interpreter needs ~100 s for
# tunnel 800x600, which a device call should not spend). The outputs are also packed into
# OUT_DIR/outputs.tgz (the device tool returns a limited number of files).
set -uo pipefail
bin="$1"; B="$2"; out="$3"
mkdir -p "$out/data"
gen() { "$bin" dataset -b "$@"; }
d="$out/data"
# Inputs: literal values or generated data (fixed seeds).
echo "800 600 -0.7f32 0f32 3.067f32 100 16f32" > "$d/mandel.in"
echo "10f32 800 600" > "$d/tunnel.in"
echo "8000 8000 -0.7f32 0f32 3.067f32 100 16f32" > "$d/mandel-big.in"
echo "10f32 4000 4000" > "$d/tunnel-big.in"
{ echo "1i32 50f32 1f32"; for s in 11 12 13 14 15 16 17; do gen -s $s -g '[100000]f32'; done; } > "$d/nbody-big.in"
{ echo "1i32 50f32 1f32"; gen -s 1 -g '[1000]f32' -g '[1000]f32' -g '[1000]f32' -g '[1000]f32' -g '[1000]f32' -g '[1000]f32' -g '[1000]f32'; } > "$d/nbody.in"
{ echo "100i32"; gen -s 2 --f32-bounds 300:340 -g '[64][64]f32'; gen -s 3 --f32-bounds 0:0.01 -g '[64][64]f32'; } > "$d/hotspot.in"
gen -s 4 -g '[128][96]u8' > "$d/srad.in"
{ echo "5i32 30f32 90f32"; gen -s 5 --f32-bounds 0:90 -g '[10000]f32'; gen -s 6 --f32-bounds 0:180 -g '[10000]f32'; } > "$d/nn.in"
rows=(
  "mandelbrot|accelerate/mandelbrot/mandelbrot.fut|main|$d/mandel.in|"
  "tunnel|accelerate/tunnel/tunnel.fut|main|$d/tunnel.in|"
  "nbody|accelerate/nbody/nbody.fut|main|$d/nbody.in|"
  "mandelbrot 8000² (time only)|accelerate/mandelbrot/mandelbrot.fut|main|$d/mandel-big.in|-"
  "tunnel 4000² (time only)|accelerate/tunnel/tunnel.fut|main|$d/tunnel-big.in|-"
  "nbody 100k (time only)|accelerate/nbody/nbody.fut|main|$d/nbody-big.in|-"
  "LocVolCalib small|finpar/LocVolCalib.fut|main|$B/finpar/LocVolCalib-data/small.in|$B/finpar/LocVolCalib-data/small.out"
  "LocVolCalib large|finpar/LocVolCalib.fut|main|$B/finpar/LocVolCalib-data/large.in|$B/finpar/LocVolCalib-data/large.out"
  "backprop small|rodinia/backprop/backprop.fut|main|$B/rodinia/backprop/data/small.in|$B/rodinia/backprop/data/small.out"
  "hotspot 64|rodinia/hotspot/hotspot.fut|main|$d/hotspot.in|"
  "srad|rodinia/srad/srad.fut|main|$d/srad.in|"
  "nn|rodinia/nn/nn.fut|main|$d/nn.in|"
)
printf '| program | GPU | reference | match | GPU wall ms | kernel ms (sum) |\n|---|---|---|---|---|---|\n' > "$out/programs.md"
for row in "${rows[@]}"; do
  IFS='|' read -r name prog entry input expected <<<"$row"
  tag="${name%% (*}"; tag="${tag//[ ²]/_}"
  s0=$(date +%s%N)
  timeout "${RUN_TIMEOUT:-300}" "$bin" run "$B/$prog" -e "$entry" --backend cuda --profile < "$input" > "$out/$tag.cuda" 2> "$out/$tag.cuda.err"
  st=$?
  s1=$(date +%s%N)
  wall=$(( (s1 - s0) / 1000000 ))
  kms=$(awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9.]+$/ && $1 !~ /^\(/ {s+=$3} END {printf "%.3f", s}' "$out/$tag.cuda.err")
  if [[ "$expected" == "-" ]]; then ref=""; refname="none"
  elif [[ -n "$expected" ]]; then ref="$expected"; refname=".out file"
  elif [[ -n "${REF_DIR:-}" && -s "$REF_DIR/$tag.interp" ]]; then
    ref="$REF_DIR/$tag.interp"; refname="interpreter (same input, run beforehand on a CPU)"
  else
    timeout "${RUN_TIMEOUT:-300}" "$bin" run "$B/$prog" -e "$entry" --backend interp < "$input" > "$out/$tag.interp" 2> "$out/$tag.interp.err"
    ref="$out/$tag.interp"; refname="interpreter"
  fi
  if [[ $st -ne 0 ]]; then gpu="failed ($st): $(grep -m1 -i error "$out/$tag.cuda.err" | cut -c1-120)"; match="-"
  elif [[ -z "$ref" ]]; then gpu="ran"; match="-"
  else gpu="ran"; match=$(python3 bench/gpu/compare_values.py "$out/$tag.cuda" "$ref" 2>&1 | tail -1); fi
  echo "| $name | $gpu | $refname | $match | $wall | $kms |" | tee -a "$out/programs.md"
done
tar czf "$out/outputs.tgz" -C "$out" --exclude='*.tgz' --exclude=data . 2>/dev/null
