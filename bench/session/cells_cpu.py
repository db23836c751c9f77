#!/usr/bin/env python3
"""CPU time per REPL cell, steadier than wall time on a loaded machine: for each binary
folder, N copies of CELL piped into `futhark-repl --backend interp`, user+sys CPU of the
process minus that of an empty session, / N; plus the median of the session's own `check`
time (`:time on`). Five rounds, binaries alternating; medians are printed.

Usage: bench/session/cells_cpu.py CELL N DIR [DIR...]   (each DIR holds futhark-repl)"""

import os
import re
import statistics
import subprocess
import sys

ENV = dict(os.environ, FUTHARK_NO_GPU="1", FUTHARK_REPL_HISTORY=os.devnull)


def cpu(exe, text):
    before = os.times()
    subprocess.run([exe, "--backend", "interp"], input=text.encode(), capture_output=True,
                   env=ENV, check=True)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def check_median(exe, text):
    out = subprocess.run([exe, "--backend", "interp"], input=(":time on\n" + text).encode(),
                         capture_output=True, env=ENV, check=True).stdout.decode()
    times = [float(m[1]) * (1e-3 if m[2] == "µs" else 1.0)
             for m in re.finditer(r"check (\S+) (µs|ms)", out)]
    return statistics.median(times)


def main():
    cell, n, dirs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    text = (cell + "\n") * n
    per_cell = {d: [] for d in dirs}
    checks = {d: [] for d in dirs}
    for _ in range(5):
        for d in dirs:
            exe = os.path.join(d, "futhark-repl")
            per_cell[d].append((cpu(exe, text) - cpu(exe, "")) / n * 1e3)
            checks[d].append(check_median(exe, text) * 1e3)
    for d in dirs:
        print(f"{d}: CPU per cell {statistics.median(per_cell[d]):.3f} ms "
              f"({', '.join(f'{x:.3f}' for x in per_cell[d])}); "
              f"check {statistics.median(checks[d]):.0f} µs "
              f"({', '.join(f'{x:.0f}' for x in checks[d])})")


if __name__ == "__main__":
    main()
