"""Cross-check of futhark-values against futhark-data, the independent Python implementation
of Futhark's data formats (PyPI package `futhark-data`).

Usage: python3 crosscheck.py DIR

Reads DIR/ours.txt and DIR/ours.bin (written by the Rust test) with futhark-data, and writes
back what it read:
  DIR/from_txt.bin  values read from ours.txt, in futhark-data's binary format
  DIR/from_bin.bin  values read from ours.bin, in futhark-data's binary format
  DIR/py.txt        values read from ours.bin, in futhark-data's text format
The Rust test then reads these files and compares them with the values it started from.
"""

import os
import sys

import numpy as np
import futhark_data

# futhark-data 1.0.3 calls np.product, which NumPy 2 removed; np.prod is the same function.
if not hasattr(np, "product"):
    np.product = np.prod


def as_printable(v):
    """futhark-data reads binary scalars as 0-d arrays but prints only NumPy scalars."""
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return v[()]
    return v


def main(directory):
    with open(os.path.join(directory, "ours.txt"), "r") as f:
        from_txt = list(futhark_data.loads(f.read()))
    with open(os.path.join(directory, "ours.bin"), "rb") as f:
        from_bin = list(futhark_data.loadb(f.read()))
    with open(os.path.join(directory, "from_txt.bin"), "wb") as f:
        for v in from_txt:
            f.write(futhark_data.dumpb(v))
    with open(os.path.join(directory, "from_bin.bin"), "wb") as f:
        for v in from_bin:
            f.write(futhark_data.dumpb(v))
    with open(os.path.join(directory, "py.txt"), "w") as f:
        for v in from_bin:
            f.write(futhark_data.dumps(as_printable(v)))
            f.write("\n")
    print(f"futhark-data read {len(from_txt)} text and {len(from_bin)} binary values")


if __name__ == "__main__":
    main(sys.argv[1])
