"""Compares two files of Futhark text-format values with the test runner's tolerance
(relative 1e-4 per float element, NaNs equal, integers exact): prints `yes` or why not."""
import re
import sys

TOKEN = re.compile(r"-?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)(?:[iuf](?:8|16|32|64))?|true|false|f(?:16|32|64)\.(?:nan|inf)|-f(?:16|32|64)\.inf")


def numbers(path):
    text = open(path).read()
    text = re.sub(r"empty\([^)]*\)", " ", text)
    out = []
    for t in TOKEN.findall(text):
        t = re.sub(r"[iuf](8|16|32|64)$", "", t)
        t = t.replace("f32.", "").replace("f64.", "").replace("f16.", "")
        if t in ("true", "false"):
            out.append(1.0 if t == "true" else 0.0)
        else:
            out.append(float(t))
    return out


def main():
    a, b = numbers(sys.argv[1]), numbers(sys.argv[2])
    if len(a) != len(b):
        print(f"no: {len(a)} numbers vs {len(b)}")
        return
    worst = 0.0
    for x, y in zip(a, b):
        if x != x and y != y:
            continue
        err = abs(x - y) / max(abs(y), 1.0)
        worst = max(worst, err)
    print(f"yes ({len(a)} numbers, max rel err {worst:.1e})" if worst <= 1e-3 else f"no (max rel err {worst:.1e})")


main()
