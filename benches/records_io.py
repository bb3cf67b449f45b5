"""Records and --out at scale: size per hand, reading speed, and peak memory.

    python benches/records_io.py [--hands 100000] [--read 1000000 ...] [--out-hands 300000] [--json PATH]

1. ``simulate(hands=H, policies=("random",)*4, threads=2, records=...)``: bytes per hand,
   and its hands/s against the same run without records (median of ``--repeat`` pairs,
   alternated): what writing the file (every frame checked and stamped) costs.
2. Reading: that file's hands repeated to ``--read`` records (written by the core's writer,
   every frame whole, in order, with its footer), read with ``read_records(replay=False)`` in a fresh process under
   ``/usr/bin/time -v``: records/s and the process's maximum RSS (several ``--read`` sizes:
   one fresh process each, so the RSS of a small and a large file can be compared); then the
   first 20,000 hands replayed into games (``read_records(path)``): games/s.
3. ``tractor simulate --hands N --out f.npz`` (the arrays streamed to disk) against the same
   run with ``--plot`` (which keeps them in memory): maximum RSS of each.

``--json PATH`` also writes every figure (``benches/tables.py`` reads it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import statistics
import struct
import zlib

import tractor
from tractor import _core

READ = """
import sys, time, tractor
t = time.perf_counter()
n = sum(1 for _ in tractor.read_records(sys.argv[1], replay=False))
dt = time.perf_counter() - t
print(n, dt)
"""


def timed(cmd):
    p = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    return p.stdout, rss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--read", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--out-hands", type=int, default=300_000)
    ap.add_argument("--repeat", type=int, default=5, help="pairs of runs with and without records")
    ap.add_argument("--json", help="also write the results to this file")
    a = ap.parse_args()
    res = {"hands": a.hands, "reads": [], "out_hands": a.out_hands}
    d = tempfile.mkdtemp(prefix="tractor-bench-")
    try:
        rec = os.path.join(d, "r.rec")
        t = time.perf_counter()
        tractor.simulate(hands=a.hands, policies=("random",) * 4, threads=2, records=rec, keep_arrays=False)
        dt = time.perf_counter() - t
        size = os.path.getsize(rec)
        print(f"write: {a.hands:,} random hands with records in {dt:.1f}s; {size / a.hands:.0f} bytes/hand")
        res["bytes_per_hand"] = size / a.hands
        with_rec, without = [], []
        for k in range(a.repeat):
            for keep_records, into in ((True, with_rec), (False, without))[:: 1 if k % 2 == 0 else -1]:
                t = time.perf_counter()
                tractor.simulate(hands=a.hands, policies=("random",) * 4, threads=2, keep_arrays=False,
                                 records=os.path.join(d, "w.rec") if keep_records else None)
                into.append(a.hands / (time.perf_counter() - t))
        w, wo = statistics.median(with_rec), statistics.median(without)
        print(f"write: {w:,.0f} hands/s with records, {wo:,.0f} without (median of {a.repeat}): ratio {w / wo:.3f}")
        res["hands_per_s_records"], res["hands_per_s_plain"] = w, wo
        _, blob = _core.simulate_hands(1, 0, a.hands, ["random"] * 4, "guigang", 2, True)
        rates = []
        for _ in range(a.repeat):
            wr = _core.RecordsWriter(os.path.join(d, "blob.rec"), 0, "{}")
            t = time.perf_counter()
            wr.write(blob)
            rates.append(a.hands / (time.perf_counter() - t))
            wr.finish(False)
        res["writer_frames_per_s"] = statistics.median(rates)
        print(f"the core's writer alone (check, stamp, write): {res['writer_frames_per_s']:,.0f} frames/s")

        bodies = [r.frame[16:-4] for r in tractor.read_records(rec, replay=False)]
        big = os.path.join(d, "big.rec")
        for want in sorted(a.read):
            w = _core.RecordsWriter(big, 0, json.dumps({"note": "repeated hands"}))
            batch = []
            for i in range(max(1, want // a.hands) * a.hands):
                body = bodies[i % len(bodies)]
                f = struct.pack("<IIQ", len(body), 0, i) + body
                batch.append(f + struct.pack("<I", zlib.crc32(f)))
                if len(batch) == 10_000:
                    w.write(b"".join(batch))
                    batch = []
            if batch:
                w.write(b"".join(batch))
            w.finish(False)
            out, rss = timed([sys.executable, "-c", READ, big])
            n, secs = out.split()
            n, secs = int(n), float(secs)
            mib = os.path.getsize(big) / 2**20
            print(f"read: {n:,} records ({mib:.0f} MiB) in {secs:.2f}s = {n / secs:,.0f} records/s; max RSS {rss:.1f} MiB")
            res["reads"].append({"records": n, "file_mib": mib, "seconds": secs, "max_rss_mib": rss})
        t = time.perf_counter()
        g = 0
        for _ in tractor.read_records(rec):
            g += 1
            if g == 20_000:
                break
        dt = time.perf_counter() - t
        print(f"replay: {g:,} games in {dt:.2f}s = {g / dt:,.0f} games/s")
        res["replay_games_per_s"] = g / dt

        exe = shutil.which("tractor") or os.path.join(os.path.dirname(sys.executable), "tractor")
        base = [exe, "simulate", "--hands", str(a.out_hands), "--policy", "random,random,random,random",
                "--threads", "2", "--quiet"]
        _, streamed = timed(base + ["--out", os.path.join(d, "s.npz")])
        try:
            _, kept = timed(base + ["--out", os.path.join(d, "k.npz"), "--plot", os.path.join(d, "k.png")])
        except RuntimeError:
            kept = float("nan")
        print(f"--out: {a.out_hands:,} hands, max RSS {streamed:.1f} MiB streamed; {kept:.1f} MiB with --plot "
              "(arrays kept)")
        res["out_streamed_rss_mib"], res["out_plot_rss_mib"] = streamed, kept
        if a.json:
            with open(a.json, "w") as f:
                json.dump(res, f, indent=1)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
