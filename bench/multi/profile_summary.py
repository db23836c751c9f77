#!/usr/bin/env python3
"""Summarises a `futhark-rs bench --profile` kernel table (the .err file of device-run.sh):
per GPU, the kernel time per run; the host time spent issuing split launches per run (the
"(husk)" lines); and the largest kernels of GPU 0.

    python3 profile_summary.py RUNS FILE.err...
"""
import re
import sys


def summarise(path, runs):
    busy, host, top = {}, 0.0, {}
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"(?:(gpu\d+): )?(\S.*?)\s+(\d+)\s+([\d.]+)\s+(\d+)(?:\s+[\d.]+)?\s*$", line)
        if not m:
            continue
        gpu, name, _, ms = m.group(1) or "gpu0", m.group(2), int(m.group(3)), float(m.group(4))
        if name.startswith("(husk)"):
            host += ms
        elif not name.startswith("("):
            busy[gpu] = busy.get(gpu, 0.0) + ms
            if gpu == "gpu0":
                short = re.sub(r"_entry_.*", "", name).replace("entry_main_", "")
                top[short] = top.get(short, 0.0) + ms
    per = {g: round(v / runs, 1) for g, v in sorted(busy.items())}
    big = sorted(top.items(), key=lambda x: -x[1])[:8]
    print(f"{path}: kernel ms per run {per}; host ms issuing split launches per run {host / runs:.1f}")
    print("  gpu0 largest: " + ", ".join(f"{k} {v / runs:.2f}" for k, v in big))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for p in sys.argv[2:]:
        summarise(p, int(sys.argv[1]))
