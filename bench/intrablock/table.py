#!/usr/bin/env python3
"""Tables of device-run.sh's micro-benchmark lines (micro-bench.txt): the median per entry
and dataset for each configuration, and q = 1 over q = 4 (seed 002's speed-up)."""
import re
import sys
from collections import defaultdict

LINE = re.compile(r"^(\S+): \S+?:(\w+) (.+?): \d+μs \(.*median (\d+)μs")
med = defaultdict(dict)
confs = []
for line in open(sys.argv[1] if len(sys.argv) > 1 else "micro-bench.txt"):
    m = LINE.match(line.strip())
    if not m:
        continue
    conf, entry, data, us = m.group(1), m.group(2), m.group(3), int(m.group(4))
    if conf not in confs:
        confs.append(conf)
    med[(entry, data)][conf] = us
print("| entry | dataset | " + " | ".join(confs) + " | q=1 / q=4 | sep / auto |")
print("|---|---|" + "---|" * (len(confs) + 2))
for (entry, data), row in med.items():
    cells = [f"{row[c]}" if c in row else "-" for c in confs]
    ratio = f"{row['q=1'] / row['q=4']:.2f}×" if "q=1" in row and "q=4" in row else "-"
    sep = f"{row['sep'] / row['auto']:.2f}×" if "sep" in row and "auto" in row else "-"
    short = data.split(" ")[0]
    print(f"| {entry} | {short} | " + " | ".join(cells) + f" | {ratio} | {sep} |")
