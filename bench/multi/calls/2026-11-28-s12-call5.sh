#!/usr/bin/env bash
# Session 12, call 5 (short: device time nearly spent): LocVolCalib on 4 GPUs with call 4's
# build and call 2's (-prev), with and without row balancing (FUTHARK_BALANCE=0), to see
# whether call 4's slower 4-GPU time (70 against 61 ms) comes from the balancer.
set -u
L=.gpu/benchmarks/finpar/LocVolCalib.fut
I=.gpu/benchmarks/finpar/LocVolCalib-data/large.in
export NCCL_NVLS_ENABLE=0
for rep in 1 2; do
for b in futhark-rs futhark-rs-prev; do
  for bal in on 0; do
    if [[ $bal == on ]]; then unset FUTHARK_BALANCE; else export FUTHARK_BALANCE=0; fi
    timeout 60 .gpu/bin/$b bench --backend cuda --gpus 4 --runs 10 --budget 20 --input $I -e main \
      --json /tmp/x.json $L > /dev/null 2>&1
    m=$(python3 -c "import json,statistics
d=json.load(open('/tmp/x.json'))
print(statistics.median([x for e in d.values() for ds in e['datasets'].values() for x in ds['runtimes']]))" 2>&1)
    echo "round $rep $b balance=$bal: $m"
  done
done
done
