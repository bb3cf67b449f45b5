"""Compares two ``ladder_stats --tsv`` files timed on the same corpus (``--load``): a baseline
build (e.g. the last commit) and the current one.

    python benches/compare_stats.py BASE.tsv[,BASE2.tsv...] NEW.tsv[,NEW2.tsv...]

Several files for one side (runs of one build, interleaved with the other's) are combined
position by position with the minimum of their medians, which discards bursts of load.

Per stratum and op: the median per-call time of each build over the positions, and in
parentheses the median of the per-position speed-ups base / new (a paired statistic: it need
not equal the ratio of the two medians). Also checks that both builds count the same number
of legal follows on every position.
"""

from __future__ import annotations

import csv
import statistics
import sys
from collections import defaultdict


def read(paths):
    rows = {}
    meta = {}
    for path in paths.split(","):
        with open(path) as f:
            for r in csv.DictReader(f, delimiter="\t"):
                i = int(r["index"])
                meta[i] = (int(r["n"]), int(r["m"]), r["long"] == "1", r["case"], int(r["count"]))
                v = float(r["ns"])
                k = (i, r["op"])
                rows[k] = min(rows.get(k, v), v) if v == v else rows.get(k, v)
    return meta, rows


def name(n, m, long):
    return f"N={n} m={m} {'S>N' if long else 'S≤N'}"


def main() -> int:
    mb, base = read(sys.argv[1])
    mn, new = read(sys.argv[2])
    assert set(mb) == set(mn), "the two files are not of one corpus"
    bad = [i for i in mb if mb[i][4] != mn[i][4]]
    print(f"positions: {len(mb)}; legal-follow counts differ on {len(bad)} of them")
    for i in bad[:10]:
        print(f"  position {i}: base {mb[i][4]} new {mn[i][4]}")
    groups = defaultdict(list)
    for i, (n, m, long, case, _) in mn.items():
        groups[(0, n, m, long)].append(i)
        if n <= 2:
            groups[(1, "all N ≤ 2")].append(i)
        if n >= 4 and long:
            groups[(2, "ladder: N ≥ 4, S > N")].append(i)
        if n >= 3 and not long:
            groups[(3, "short: N ≥ 3, S ≤ N")].append(i)
        groups[(4, "all")].append(i)
    ops = ["check+", "check-", "count", "sample", "classify", "leads", "count_leads"]
    print("\n| stratum | pos | " + " | ".join(f"{op}: base → new ns (speed-up)" for op in ops) + " |")
    print("|---|---:|" + "---:|" * len(ops))
    for key in sorted(groups, key=lambda k: (k[0], k[1:] if k[0] == 0 else ())):
        idx = groups[key]
        label = name(*key[1:]) if key[0] == 0 else f"**{key[1]}**"
        cells = []
        for op in ops:
            pairs = [(base[(i, op)], new[(i, op)]) for i in idx
                     if (i, op) in base and (i, op) in new and base[(i, op)] == base[(i, op)] and new[(i, op)] == new[(i, op)]]
            if not pairs:
                cells.append("–")
                continue
            b = statistics.median(p[0] for p in pairs)
            n = statistics.median(p[1] for p in pairs)
            r = statistics.median(p[0] / p[1] for p in pairs)
            cells.append(f"{b:,.0f} → {n:,.0f} ({r:.2f}×)")
        print(f"| {label} | {len(idx)} | " + " | ".join(cells) + " |")
    # the new build alone, runs combined: median / p99 / max over positions, and the goals
    def p99(v):
        v = sorted(v)
        return v[max(1, -(-99 * len(v) // 100)) - 1]

    gops = ["check+", "check-", "count", "sample"]
    print("\n### New build, runs combined (per position: the least of its run medians)\n")
    print("ns per call, median / p99 / max over the positions of the stratum\n")
    print("| stratum | pos | " + " | ".join(gops) + " |")
    print("|---|---:|" + "---:|" * len(gops))
    stats = {}
    for key in sorted(groups, key=lambda k: (k[0], k[1:] if k[0] == 0 else ())):
        idx = groups[key]
        label = name(*key[1:]) if key[0] == 0 else f"**{key[1]}**"
        cells = []
        for op in gops:
            v = [new[(i, op)] for i in idx if (i, op) in new and new[(i, op)] == new[(i, op)]]
            if not v:
                cells.append("–")
                continue
            st = (statistics.median(v), p99(v), max(v))
            stats[(key, op)] = st
            cells.append(" / ".join(f"{x:,.0f}" for x in st))
        print(f"| {label} | {len(idx)} | " + " | ".join(cells) + " |")
    print("\nGoals:")
    small, ladder = (1, "all N ≤ 2"), (2, "ladder: N ≥ 4, S > N")
    for op in gops:
        m = stats[(small, op)][0]
        print(f"- N ≤ 2, {op}: median {m:,.0f} ns, goal ≤ 50 ns: {'MET' if m <= 50 else 'NOT MET'}")
    for op in gops:
        m, q, x = stats[(ladder, op)]
        ok = lambda b: "met" if b else "NOT met"
        print(f"- ladder, {op}: median {m:,.0f} ns (≤ 1,000: {ok(m <= 1000)}), p99 {q:,.0f} ns (≤ 5,000: {ok(q <= 5000)}), "
              f"max {x:,.0f} ns (≤ 20,000: {ok(x <= 20000)})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
