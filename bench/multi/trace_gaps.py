#!/usr/bin/env python3
"""Where the GPUs of a traced run were idle, and why (FUTHARK_TRACE timelines).

    FUTHARK_TRACE=/tmp/t futhark-rs bench ...      writes /tmp/t.gpu0.tsv, /tmp/t.gpu1.tsv, ...
    python3 trace_gaps.py /tmp/t [--from FRACTION]

Each row of a timeline is one launch (kernel, copy) with its GPU start and end and the host
times of the call that queued it, all on the host's clock, or a host-only span (a
synchronous upload or download, a driver allocation) with no GPU times. Only the part of
the timeline after FRACTION of its length is read (default 0.5: the warm-up and the
first-launch compilations stay out).

A gap between two launches on one GPU is put down to
  host  - the launch was queued after the previous one had finished (the host was late),
  wait  - else it followed a wait for another GPU's mark (a cross-device dependency),
  other - else (launch latency, the event records themselves).
"""
import argparse
import collections
import glob
import math
import sys


def read(path):
    rows = []
    with open(path) as f:
        next(f)
        for line in f:
            name, gs, ge, called, returned, waited = line.rstrip("\n").split("\t")
            rows.append((name, float(gs), float(ge), float(called), float(returned), waited == "1"))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix")
    ap.add_argument("--from", dest="frac", type=float, default=0.5)
    ap.add_argument("--top", type=int, default=8)
    a = ap.parse_args()
    files = sorted(glob.glob(a.prefix + ".gpu*.tsv"))
    if not files:
        sys.exit(f"no {a.prefix}.gpu*.tsv")
    timelines = {f: read(f) for f in files}
    gpu_rows = [r for rows in timelines.values() for r in rows if not math.isnan(r[1])]
    if not gpu_rows:
        sys.exit("no launches in the traces")
    t0 = min(r[1] for r in gpu_rows)
    t1 = max(r[2] for r in gpu_rows)
    lo = t0 + a.frac * (t1 - t0)
    print(f"window: {(t1 - lo) / 1e3:.2f} ms of {(t1 - t0) / 1e3:.2f} ms traced")
    for f, rows in timelines.items():
        launches = sorted((r for r in rows if not math.isnan(r[1]) and r[1] >= lo), key=lambda r: r[1])
        host_only = [r for r in rows if math.isnan(r[1]) and r[3] >= lo]
        if not launches:
            print(f"{f}: no launches in the window")
            continue
        span = launches[-1][2] - launches[0][1]
        busy = sum(r[2] - r[1] for r in launches)
        gaps = collections.Counter()
        by_kernel = collections.Counter()
        lead = []
        for prev, r in zip(launches, launches[1:]):
            gap = r[1] - prev[2]
            lead.append(prev[2] - r[3])
            if gap <= 0:
                continue
            if r[3] >= prev[2] - 1.0:
                cause = "host"
            elif r[5]:
                cause = "wait"
            else:
                cause = "other"
            gaps[cause] += gap
            by_kernel[(cause, r[0])] += gap
        lead.sort()
        med_lead = lead[len(lead) // 2] if lead else 0.0
        print(f"\n{f}: {len(launches)} launches, span {span / 1e3:.2f} ms, busy {busy / 1e3:.2f} ms "
              f"({100 * busy / span:.0f}%), idle host {gaps['host'] / 1e3:.2f} ms, wait "
              f"{gaps['wait'] / 1e3:.2f} ms, other {gaps['other'] / 1e3:.2f} ms; "
              f"host ahead of the GPU by {med_lead / 1e3:.3f} ms (median)")
        hs = collections.Counter()
        hn = collections.Counter()
        for r in host_only:
            hs[r[0]] += r[4] - r[3]
            hn[r[0]] += 1
        for name, t in hs.most_common():
            print(f"  host-only {name}: {hn[name]} times, {t / 1e3:.2f} ms")
        for (cause, name), g in by_kernel.most_common(a.top):
            print(f"  gap before {name} ({cause}): {g / 1e3:.2f} ms")


if __name__ == "__main__":
    main()
