"""Markdown table of criterion results: median time per iteration and per element, and with a
second target directory (a baseline build benched on the same corpus) the speed-up.

    python benches/criterion_table.py [TARGET_DIR] [BASE_TARGET_DIR]

Reads ``<target>/criterion/**/new/{benchmark,estimates}.json`` (written by ``cargo bench``;
default target: $CARGO_TARGET_DIR or ./target).
"""

from __future__ import annotations

import glob
import json
import os
import sys


def fmt_ns(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.2f} ms"
    if x >= 1e3:
        return f"{x / 1e3:.2f} µs"
    return f"{x:.1f} ns"


def read(target: str):
    rows = {}
    for b in glob.glob(os.path.join(target, "criterion", "**", "new", "benchmark.json"), recursive=True):
        meta = json.load(open(b))
        est = json.load(open(os.path.join(os.path.dirname(b), "estimates.json")))
        med = est["median"]["point_estimate"]
        mad = est["median_abs_dev"]["point_estimate"]
        elems = (meta.get("throughput") or {}).get("Elements") or 1
        rows[meta["full_id"]] = (med, mad, elems)
    return rows


def main() -> int:
    target = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CARGO_TARGET_DIR", "target")
    new = read(target)
    base = read(sys.argv[2]) if len(sys.argv) > 2 else None
    if base is None:
        print("| bench | median / iteration | elements | median / element | MAD |")
        print("|---|---:|---:|---:|---:|")
    else:
        print("| bench | elements | base: median / element | new: median / element | speed-up | MAD (new) |")
        print("|---|---:|---:|---:|---:|---:|")
    for fid in sorted(new):
        med, mad, elems = new[fid]
        if base is None:
            print(f"| {fid} | {fmt_ns(med)} | {elems} | {fmt_ns(med / elems)} | {100 * mad / med:.0f}% |")
        elif fid in base and base[fid][2] == elems:
            b = base[fid][0] / elems
            print(f"| {fid} | {elems} | {fmt_ns(b)} | {fmt_ns(med / elems)} | {b / (med / elems):.2f}× | {100 * mad / med:.0f}% |")
        else:
            print(f"| {fid} | {elems} | – | {fmt_ns(med / elems)} | – | {100 * mad / med:.0f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
