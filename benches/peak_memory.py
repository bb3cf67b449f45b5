"""Peak memory of long simulation runs: ``tractor simulate`` under ``/usr/bin/time -v``.

    python benches/peak_memory.py [--hands 100000 1000000 10000000] [--threads 2] [--budget-s 600]
        [--json PATH]

Runs ``tractor simulate --hands H --policy random,random,random,random --threads T --quiet``
for each H (ascending) and reports the maximum resident set size and the wall time. A run
whose predicted time (from the previous run's rate) exceeds ``--budget-s`` is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys


def run(hands: int, threads: int):
    exe = shutil.which("tractor") or os.path.join(os.path.dirname(sys.executable), "tractor")
    cmd = ["/usr/bin/time", "-v", exe, "simulate", "--hands", str(hands), "--policy",
           "random,random,random,random", "--threads", str(threads), "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stderr}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr).group(1)
    parts = [float(x) for x in wall.split(":")]
    secs = sum(v * 60 ** i for i, v in enumerate(reversed(parts)))
    return " ".join(cmd[2:]), rss, secs, p.stdout.strip().splitlines()[:2]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--budget-s", type=float, default=600)
    ap.add_argument("--json", help="also write the runs (hands, max RSS KiB, wall s; skipped: null) to this file")
    a = ap.parse_args()
    print("| hands | max RSS (MiB) | wall (s) | hands/s | command |\n|---:|---:|---:|---:|---|")
    rate = None
    rows = []
    runs = []
    for h in sorted(a.hands):
        if rate is not None and h / rate > a.budget_s:
            print(f"| {h:,} | skipped: predicted {h / rate:,.0f} s > budget {a.budget_s:,.0f} s | | | |")
            runs.append({"hands": h, "max_rss_kib": None, "wall_s": None, "skipped_predicted_s": h / rate})
            continue
        cmd, rss, secs, head = run(h, a.threads)
        rate = h / secs
        rows.append((h, rss))
        runs.append({"hands": h, "max_rss_kib": rss, "wall_s": secs, "command": cmd})
        print(f"| {h:,} | {rss / 1024:,.1f} | {secs:,.1f} | {rate:,.0f} | `{cmd}` |", flush=True)
    if len(rows) >= 2:
        (h0, r0), (h1, r1) = rows[0], rows[-1]
        print(f"\ngrowth from {h0:,} to {h1:,} hands: {(r1 - r0) / 1024:,.1f} MiB "
              f"= {(r1 - r0) * 1024 / (h1 - h0):.1f} bytes per extra hand")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"threads": a.threads, "runs": runs}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
