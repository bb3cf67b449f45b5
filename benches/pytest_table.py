"""Markdown table of a pytest-benchmark JSON file (``--benchmark-json PATH``): median, rounds
and the ``extra_info`` each benchmark reports.

    python benches/pytest_table.py PATH
"""

from __future__ import annotations

import json
import sys


def fmt_s(x: float) -> str:
    if x >= 1:
        return f"{x:.3f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.2f} ms"
    if x >= 1e-6:
        return f"{x * 1e6:.2f} µs"
    return f"{x * 1e9:.0f} ns"


def fmt_v(v):
    if isinstance(v, float):
        return f"{v:,.2f}" if v < 100 else f"{v:,.0f}"
    return str(v)


def main() -> int:
    d = json.load(open(sys.argv[1]))
    print("| group | benchmark | median | IQR | rounds | extra |")
    print("|---|---|---:|---:|---:|---|")
    for b in sorted(d["benchmarks"], key=lambda b: (b["group"] or "", b["name"])):
        s = b["stats"]
        extra = ", ".join(f"{k} = {fmt_v(v)}" for k, v in b.get("extra_info", {}).items())
        print(f"| {b['group']} | {b['name']} | {fmt_s(s['median'])} | {fmt_s(s['iqr'])} | {s['rounds']} | {extra} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
