#!/usr/bin/env python3
"""How each kernel's time per launch scales with the number of GPUs, from the `--profile`
tables (the .err files of device-run.sh) of one program on 1, 2 and 4 GPUs.

    python3 kernel_scaling.py G1.err G2.err [G4.err]

For every kernel of GPU 0: launches, microseconds per launch with 1, 2 (and 4) GPUs, and
the fit t(G) = a + b / G from the 1- and 2-GPU figures: `a` is what a launch costs
whatever its share of the work (launch, ramp-up, tail), `b` the part that divides. The
last line sums launches x a over the kernels: the time per profile that does not shrink
with more GPUs.
"""
import re
import sys

ROW = re.compile(r"(?:(gpu\d+): )?(\S.*?)\s+(\d+)\s+([\d.]+)\s+(\d+)(?:\s+[\d.]+)?\s*$")


def table(path):
    """kernel -> (launches, ms) on GPU 0."""
    rows = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        m = ROW.match(line)
        if not m or m.group(2).startswith("(") or m.group(2) == "kernel":
            continue
        if (m.group(1) or "gpu0") != "gpu0":
            continue
        launches, ms = int(m.group(3)), float(m.group(4))
        # A split kernel's pieces are named `<kernel>__piece_<entry>`, whole ones `<kernel>_<entry>`.
        name = m.group(2).replace("__piece_", "_")
        old = rows.get(name, (0, 0.0))
        rows[name] = (old[0] + launches, old[1] + ms)
    return rows


def main(paths):
    tables = [table(p) for p in paths]
    base = tables[0]
    heads = ["1", "2", "4"][: len(tables)]
    print(f"{'kernel':<34} {'launches':>8} " + " ".join(f"{'us@' + h:>9}" for h in heads)
          + f" {'fixed a':>8} {'split b':>8}")
    fixed_total = work_total = 0.0
    for name, (n, ms) in sorted(base.items(), key=lambda kv: -kv[1][1]):
        per = [1000.0 * ms / n if n else 0.0]
        for t in tables[1:]:
            n2, ms2 = t.get(name, (0, 0.0))
            per.append(1000.0 * ms2 / n2 if n2 else float("nan"))
        a = 2 * per[1] - per[0] if len(per) > 1 else float("nan")
        b = per[0] - a
        if a == a:  # not NaN
            fixed_total += n * a / 1000.0
            work_total += n * b / 1000.0
        print(f"{name[:34]:<34} {n:>8} " + " ".join(f"{p:>9.1f}" for p in per)
              + f" {a:>8.1f} {b:>8.1f}")
    print(f"sum over kernels (ms per profile): fixed {fixed_total:.1f}, dividing {work_total:.1f}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1:])
