#!/usr/bin/env python3
"""Compares two `futhark-rs test --json` reports case by case: which cases pass in one and
not the other. Usage: compare_runs.py BASE.json OTHER.json"""
import json
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    return d, {(r["file"], r["entry"], str(r["case"])): r for r in d["results"]}


base, a = load(sys.argv[1])
other, b = load(sys.argv[2])
print(f"{sys.argv[1]}: {base['passed']} passed, {base['failed']} failed, {base['skipped']} skipped")
print(f"{sys.argv[2]}: {other['passed']} passed, {other['failed']} failed, {other['skipped']} skipped")
lost = [k for k in a if a[k]["status"] == "passed" and b.get(k, {}).get("status") != "passed"]
won = [k for k in b if b[k]["status"] == "passed" and a.get(k, {}).get("status") != "passed"]
print(f"passed only in the first: {len(lost)}; only in the second: {len(won)}")
for k in lost + won:
    side = "first" if k in lost else "second"
    r = b.get(k) if side == "first" else a.get(k)
    msg = (r or {}).get("message", "")[:160].replace("\n", " ")
    print(f"  only in the {side}: {k[0]} {k[1]} {k[2]}: {msg}")
sys.exit(1 if lost or won else 0)
