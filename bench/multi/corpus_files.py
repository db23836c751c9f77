#!/usr/bin/env python3
"""Helpers of corpus-run.sh.

  corpus_files.py deal N CORPUS [PREVIOUS_DIR] OUT_DIR
      writes OUT_DIR/0.txt .. N-1.txt: the corpus's .fut files dealt round-robin (only those
      the reports in PREVIOUS_DIR left unstarted, when given)
  corpus_files.py compare BASE REPORT...
      merges the reports (a case's latest non-skipped result wins) and compares each case
      with BASE (a --gpus 1 report): same verdict, different, not reached
"""
import glob
import gzip
import json
import os
import sys

NOT_STARTED = "time-limit"


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["results"]


def key(r):
    return (os.path.normpath(r["file"]), r["entry"], str(r["case"]))


def deal(n, corpus, rest):
    out = rest[-1]
    prev = rest[0] if len(rest) > 1 else None
    files = sorted(glob.glob(os.path.join(corpus, "**", "*.fut"), recursive=True))
    if prev:
        started, unstarted = set(), set()
        for p in glob.glob(os.path.join(prev, "*.json*")):
            for r in load(p):
                f = os.path.normpath(r["file"])
                if r["status"] == "skipped" and NOT_STARTED in (r.get("message") or ""):
                    unstarted.add(f)
                else:
                    started.add(f)
        files = [f for f in files if os.path.normpath(f) in unstarted - started]
    os.makedirs(out, exist_ok=True)
    for k in range(n):
        with open(os.path.join(out, f"{k}.txt"), "w") as f:
            f.write("".join(x + "\n" for x in files[k::n]))
    print(f"{len(files)} files over {n} group(s)")


def compare(base_path, reports):
    base = {key(r): r for r in load(base_path)}
    got = {}
    for p in reports:
        for r in load(p):
            if r["status"] != "skipped" or key(r) not in got:
                got[key(r)] = r
    run = [k for k, r in base.items() if r["status"] != "skipped"]
    reached = [k for k in run if k in got and got[k]["status"] != "skipped"]
    differ = [k for k in reached if got[k]["status"] != base[k]["status"]]
    print(f"{len(run)} run cases in the base; reached {len(reached)}; "
          f"same verdict {len(reached) - len(differ)}; different {len(differ)}")
    for k in differ:
        msg = (got[k].get("message") or base[k].get("message") or "")[:160].replace("\n", " ")
        print(f"  {k[0]} {k[1]} {k[2][:40]}: {base[k]['status']} -> {got[k]['status']}: {msg}")


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "deal":
        deal(int(sys.argv[2]), sys.argv[3], sys.argv[4:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
