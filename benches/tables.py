"""The tables of BENCHMARKS.md, from the raw outputs of one ``benches/run_all.sh`` run.

    python benches/tables.py OUT [TABLE ...]    # writes OUT/tables/TABLE.md (default: every table),
                                                # then OUT/tables/summary.md and machine.md
    python benches/tables.py OUT --blocks       # only summary.md and machine.md
    python benches/tables.py --page OUT         # prints the whole page: the header, the machine
                                                # block, the summary and OUT/tables/*.md in order
    python benches/tables.py --page --template  # the same page with TBD wherever a number goes

``run_all.sh`` calls the first form after each step, then ``--blocks`` and ``--page`` at the end
(into ``OUT/BENCHMARKS.md``): after a full run, the committed ``BENCHMARKS.md`` is that file,
copied. Every table file is one whole section of the page (heading, goal, table, command,
verdict), so the page is the header, the run's block and the summary followed by the table files;
``--template`` renders the same sections with no data (``TBD`` for every number), which is the
page before a full run has filled it in.

Raw inputs (all under ``OUT/raw``; ``run_all.sh`` names them):

- ``rules_guigang_*.tsv``, ``rules_competition.tsv``: ``ladder_stats --tsv`` (per position and
  query, ns); several guigang runs are combined per position by the least of their medians;
- ``move/{new,base}_{round}_{kind}.txt``: ``throughput``, ``search_speed`` and
  ``determinize_speed`` of this tree and of the baseline, interleaved;
- ``threads/{1,2}_{round}_{policy}.txt``: ``throughput`` on 1 and 2 threads, paired;
- ``hearts.json``, ``search.json``, ``determinize.txt``, ``ismcts_threads.json``, ``pimc_threads.json``,
  ``vecenv.json``, ``records.json``, ``memory.json``: the ``--json`` of the bench scripts;
- ``criterion/``: ``CRITERION_HOME`` of the ``observe/`` and ``hand/`` criterion benches;
- ``pytest_game.json``: pytest-benchmark's JSON of ``benches/bench_game.py``.
"""

from __future__ import annotations

import glob
import json
import os
import re
import statistics
import sys
import unicodedata

BASE_REV_DEFAULT = "aa2650d"

# -- formatting ---------------------------------------------------------------------------------

TBD = "TBD"


def read_text(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def num(x, fmt: str = "{:,.0f}") -> str:
    if x is None:
        return TBD
    if isinstance(x, float) and x != x:
        return "–"
    return fmt.format(x)


def ns(x) -> str:
    """ns with a precision that suits the size."""
    if x is None:
        return TBD
    if x != x:
        return "–"
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


def ratio(x) -> str:
    return num(x, "{:.2f}×")


def verdict(ok) -> str:
    if ok is None:
        return TBD
    return "**met**" if ok else "**not met**"


def slugify(heading: str) -> str:
    """The anchor of a heading, as GitHub and mkdocs make it (tests/test_docs.py's rule)."""
    text = heading.replace("`", "").replace("*", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def all_ok(*oks):
    if any(o is None for o in oks):
        return None
    return all(oks)


# -- reading raw outputs ------------------------------------------------------------------------


class Raw:
    def __init__(self, out: str):
        self.out = out
        self.dir = os.path.join(out, "raw")

    def path(self, *p):
        return os.path.join(self.dir, *p)

    def has(self, *p) -> bool:
        return bool(glob.glob(self.path(*p)))

    def json(self, name):
        with open(self.path(name)) as f:
            return json.load(f)

    def text(self, name):
        with open(self.path(name)) as f:
            return f.read()


THROUGHPUT = re.compile(r"^(\w+) (\S+): (\d+) hands in ([\d.]+)s: (\d+) hands/s, ([\d.]+) M cards/s", re.M)
SEARCH = re.compile(r"ISMCTS: ([\d.]+) iterations/s; PIMC 32x8: ([\d.]+) decisions/s")
DET_PHASE = re.compile(
    r"^(mid-deal|first trick|mid-hand|last trick)\s+([\d.]+) /\s+([\d.]+)\s+([\d.]+) /\s+([\d.]+)\s+([\d.]+) /\s+([\d.]+)\n"
    r"\s+proposals per accepted hands: ([\d.]+|NaN|inf); search hands \(no timing\) µs median / p99: ([\d.]+) / ([\d.]+)",
    re.M,
)


def parse_throughput(text: str):
    m = THROUGHPUT.search(text)
    if not m:
        raise ValueError(f"not a throughput line: {text[:200]!r}")
    return {
        "hands_per_s": float(m.group(5)),
        "cards_per_s": float(m.group(6)) * 1e6,
        "hands": int(m.group(3)),
    }


def parse_determinize(text: str):
    out = {}
    for m in DET_PHASE.finditer(text):
        out[m.group(1)] = {
            "first_med": float(m.group(2)),
            "first_p99": float(m.group(3)),
            "next_med": float(m.group(4)),
            "next_p99": float(m.group(5)),
            "hands_med": float(m.group(6)),
            "hands_p99": float(m.group(7)),
            "search_med": float(m.group(9)),
            "search_p99": float(m.group(10)),
        }
    if not out:
        raise ValueError("no determinize_speed table")
    return out


def ladder_tsv(paths):
    """{(index, op): ns} (least over the runs), {index: (n, m, long)}."""
    import csv

    rows, meta = {}, {}
    for p in paths:
        with open(p) as f:
            for r in csv.DictReader(f, delimiter="\t"):
                i = int(r["index"])
                meta[i] = (int(r["n"]), int(r["m"]), r["long"] == "1")
                v = float(r["ns"])
                if v != v:
                    continue
                k = (i, r["op"])
                rows[k] = min(rows.get(k, v), v)
    return rows, meta


def p99_rank(v):
    """Nearest-rank p99, as ladder_stats prints it."""
    v = sorted(v)
    n = len(v)
    return v[min(max(1, -(-99 * n // 100)), n) - 1]


def summary3(v):
    if not v:
        return (None, None, None)
    return (statistics.median(v), p99_rank(v), max(v))


def criterion(raw: Raw, bench_id: str):
    """(median ns per iteration, elements) of a criterion bench id such as ``observe/early``."""
    d = raw.path("criterion", *bench_id.split("/"), "new")
    with open(os.path.join(d, "estimates.json")) as f:
        est = json.load(f)
    with open(os.path.join(d, "benchmark.json")) as f:
        meta = json.load(f)
    elems = (meta.get("throughput") or {}).get("Elements") or 1
    return est["median"]["point_estimate"], elems


# -- the sections ---------------------------------------------------------------------------------
#
# Each section: (name, step, inputs present?, compute(raw) -> dict, render(v) -> (markdown,
# summary row)). render gets {} in template mode, so every value it reads may be None: num()
# and verdict() print TBD for it.

SECTIONS = []


def section(name, step, needs):
    def deco(fn):
        SECTIONS.append((name, step, needs, fn))
        return fn

    return deco


def regen(step: str, name: str) -> str:
    return (
        f"Regenerate: `benches/run_all.sh {step}` (`$OUT/tables/{name}.md`; commands in `$OUT/raw/{step}.cmd`)."
    )


OPS = [
    ("check+", "check (legal play)"),
    ("check-", "check (illegal play)"),
    ("count", "count"),
    ("sample", "sample"),
]


def rules_values(raw: Raw):
    runs = sorted(glob.glob(raw.path("rules_guigang_*.tsv")))
    rows, meta = ladder_tsv(runs)
    small = [i for i, (n, m, long) in meta.items() if n <= 2]
    ladder = [i for i, (n, m, long) in meta.items() if n >= 4 and long]
    v = {"runs": len(runs), "positions": len(meta), "small": len(small), "ladder": len(ladder)}
    for key, idx in (("small", small), ("ladder", ladder)):
        for op, _ in OPS:
            v[(key, op)] = summary3([rows[(i, op)] for i in idx if (i, op) in rows])
            ratios = [
                rows[(i, "oracle")] / rows[(i, op)] for i in idx if (i, "oracle") in rows and (i, op) in rows
            ]
            v[(key, op, "oracle")] = statistics.median(ratios) if ratios else float("nan")
    return v


@section("rules", "rules", ["rules_guigang_*.tsv"])
def rules_section(raw):
    v = rules_values(raw) if raw else {}
    title = "Rules core: follow queries per position"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 2, guigang rules): per position of the seeded corpus of real deals "
        "(`rust/core/benches/corpus.rs`), each query including `Follow::new`: with N ≤ 2 led cards, "
        "median ≤ 50 ns for the check, count and sample; on ladder positions (N ≥ 4 led, more than N "
        "held in the led class), median ≤ 1 µs, p99 ≤ 5 µs and max ≤ 20 µs for each. Anchor: the "
        "brute-force oracle of the tests on the same positions (the issue asks for the ratio)."
    )
    lines.append("")
    lines.append(
        f"Positions: {num(v.get('positions'))} in all, {num(v.get('small'))} with N ≤ 2, "
        f"{num(v.get('ladder'))} ladder positions; runs combined: {num(v.get('runs'))} (per position, the "
        "least of its run medians)."
    )
    lines.append("")
    lines.append(
        "| positions | query | median ns | p99 ns | max ns | goal (ns) | met | oracle / engine (median) |"
    )
    lines.append("|---|---|---:|---:|---:|---|---|---:|")
    oks = []  # (row, met?)
    for key, label in (("small", "N ≤ 2"), ("ladder", "ladder")):
        for op, opname in OPS:
            m, p, x = v.get((key, op), (None, None, None))
            if key == "small":
                goal = "median ≤ 50"
                ok = None if m is None else m <= 50
            else:
                goal = "≤ 1,000 / 5,000 / 20,000"
                ok = None if m is None else (m <= 1000 and p <= 5000 and x <= 20000)
            oks.append((f"{label} {opname}", ok))
            orc = "–" if op == "check-" else num(v.get((key, op, "oracle")), "{:,.0f}×")
            lines.append(
                f"| {label} | {opname} | {ns(m)} | {ns(p)} | {ns(x)} | {goal} | {verdict(ok)} | {orc} |"
            )
    lines.append("")
    lines.append(regen("rules", "rules"))
    lines.append("")
    ok = all_ok(*(o for _, o in oks))
    missed = [row for row, o in oks if o is False]
    lines.append(f"Verdict: {verdict(ok)}" + (f" (missed: {', '.join(missed)})." if missed else "."))
    lm = v.get(("ladder", "count"), (None, None, None))
    result = f"ladder count {ns(lm[0])} / {ns(lm[1])} / {ns(lm[2])} ns"
    return "\n".join(lines), (title, "N ≤ 2 median ≤ 50 ns; ladder ≤ 1 / 5 / 20 µs", result, ok)


@section("rules-competition", "rules", ["rules_competition.tsv", "rules_guigang_*.tsv"])
def rules_competition_section(raw):
    v = {}
    if raw:
        rows, meta = ladder_tsv([raw.path("rules_competition.tsv")])
        ladder = [i for i, (n, m, long) in meta.items() if n >= 4 and long]
        v["ladder"] = len(ladder)
        for op, _ in OPS:
            v[op] = summary3([rows[(i, op)] for i in ladder if (i, op) in rows])
        g = rules_values(raw)
        v["g_ladder"] = g["ladder"]
        for op, _ in OPS:
            v[("g", op)] = g[("ladder", op)]
    title = "Competition rules: follow queries per position"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 11, competition profile): on ladder positions, the check median ≤ 1 µs and "
        "p99 ≤ 5 µs; count and sample median ≤ 2 µs and p99 ≤ 20 µs. Anchor: the same hands and leads "
        "under the guigang rules, in the same run (the guigang column is the previous section's)."
    )
    lines.append("")
    lines.append(
        f"Ladder positions: {num(v.get('ladder'))} under competition, {num(v.get('g_ladder'))} under guigang."
    )
    lines.append("")
    lines.append(
        "| ladder positions | competition: median / p99 / max ns | guigang: median / p99 / max ns | goal (competition, ns) | met |"
    )
    lines.append("|---|---:|---:|---|---|")
    oks = []
    for op, opname in OPS:
        m, p, x = v.get(op, (None, None, None))
        gm, gp, gx = v.get(("g", op), (None, None, None))
        lim = (1000, 5000) if op.startswith("check") else (2000, 20000)
        ok = None if m is None else (m <= lim[0] and p <= lim[1])
        oks.append(ok)
        lines.append(
            f"| {opname} | {ns(m)} / {ns(p)} / {ns(x)} | {ns(gm)} / {ns(gp)} / {ns(gx)} | "
            f"median ≤ {lim[0]:,}, p99 ≤ {lim[1]:,} | {verdict(ok)} |"
        )
    lines.append("")
    lines.append(regen("rules", "rules-competition"))
    lines.append("")
    ok = all_ok(*oks)
    lines.append(f"Verdict: {verdict(ok)}.")
    m = v.get("count", (None, None, None))
    return "\n".join(lines), (
        title,
        "check ≤ 1 / 5 µs; count, sample ≤ 2 / 20 µs (median / p99)",
        f"ladder count {ns(m[0])} / {ns(m[1])} ns",
        ok,
    )


@section("game", "game", ["criterion/hand", "pytest_game.json"])
def game_section(raw):
    v = {}
    if raw:
        for b in ("position_clone", "game_clone_with_record", "simulate_hand_random", "simulate_hand_greedy"):
            t, e = criterion(raw, f"hand/{b}")
            v[b] = t / e
        d = raw.json("pytest_game.json")
        for b in d["benchmarks"]:
            if b["name"] == "test_full_hand_python_loop":
                x = b["extra_info"]
                v["py_hand"] = b["stats"]["median"] / x["hands_per_round"]
                v["py_multi"] = x["multi_option_decisions_per_s"]
                v["py_all"] = x["decisions_per_s"]
            elif b["name"] == "test_game_clone":
                v["py_clone"] = b["stats"]["median"]
    title = "A hand and a clone"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 3): a `Position` (the state the rules need to go on, no heap; its size ≤ 512 bytes is "
        "asserted by `cargo test`) clones in tens of nanoseconds, read here as under 100 ns. Reported beside "
        "it, with no threshold (issues 3 and 4): a whole hand inside Rust, and a hand driven step by step "
        "from Python through `legal_actions`/`apply`."
    )
    lines.append("")
    lines.append("| measurement | median | rate |")
    lines.append("|---|---:|---:|")

    def t(x, unit):
        if x is None:
            return TBD
        return {"ns": f"{x:,.1f} ns", "us": f"{x / 1e3:,.2f} µs"}[unit]

    lines.append(
        f"| Rust: `Position` clone (criterion `hand/position_clone`) | {t(v.get('position_clone'), 'ns')} | – |"
    )
    lines.append(
        f"| Rust: `Game` clone, with its record (`hand/game_clone_with_record`) | {t(v.get('game_clone_with_record'), 'ns')} | – |"
    )
    for p in ("random", "greedy"):
        x = v.get(f"simulate_hand_{p}")
        lines.append(
            f"| Rust: a whole {p} hand, deal to score (`hand/simulate_hand_{p}`) | {t(x, 'us')} | "
            f"{num(None if x is None else 1e9 / x)} hands/s |"
        )
    ph = v.get("py_hand")
    lines.append(
        f"| Python: a random hand through `legal_actions`/`apply` (`benches/bench_game.py`) | "
        f"{num(None if ph is None else ph * 1e3, '{:,.2f} ms')} | {num(v.get('py_multi'))} decisions/s with ≥ 2 "
        f"options ({num(v.get('py_all'))} in all) |"
    )
    pc = v.get("py_clone")
    lines.append(f"| Python: `Game.clone()` | {num(None if pc is None else pc * 1e6, '{:,.2f} µs')} | – |")
    lines.append("")
    lines.append(regen("game", "game"))
    lines.append("")
    pc = v.get("position_clone")
    ok = None if pc is None else pc < 100
    lines.append(f"Verdict: {verdict(ok)}.")
    return "\n".join(lines), (title, "`Position` clone < 100 ns", f"{t(pc, 'ns')}", ok)


def move_runs(raw: Raw, tree: str, kind: str):
    return [
        raw.text(os.path.relpath(p, raw.dir))
        for p in sorted(glob.glob(raw.path("move", f"{tree}_*_{kind}.txt")))
    ]


KINDS = [
    ("random-guigang", "guigang", "random"),
    ("greedy-guigang", "guigang", "greedy"),
    ("random-competition", "competition", "random"),
    ("greedy-competition", "competition", "greedy"),
]


def rng(xs, fmt="{:,.0f}"):
    if not xs:
        return TBD
    return f"{fmt.format(min(xs))}–{fmt.format(max(xs))}"


@section("hands", "move", ["move/new_*_random-guigang.txt"])
def hands_section(raw):
    v = {}
    if raw:
        for kind, prof, pol in KINDS:
            r = [parse_throughput(t) for t in move_runs(raw, "new", kind)]
            v[kind] = [x["hands_per_s"] for x in r]
            v[kind + "/cards"] = med([x["cards_per_s"] for x in r])
    title = "Hands per second on one core"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 4; the greedy goal restated by issue 7): random full hands ≥ 25,000 per second on one "
        "core, greedy hands ≥ 10,000. Reported beside them (issue 11): the competition profile's hands per "
        "second and their ratio to guigang's. `target/release/examples/throughput POLICY HANDS 1 PROFILE` "
        "(`simulate_range` on one thread), this tree's runs in the rounds of the section \"Unchanged by the layer move\"."
    )
    lines.append("")
    lines.append(
        "| profile | policy | hands/s (median) | range over the rounds | M cards/s | vs guigang | goal | met |"
    )
    lines.append("|---|---|---:|---:|---:|---:|---|---|")
    oks = {}
    for kind, prof, pol in KINDS:
        xs = v.get(kind)
        m = med(xs) if xs else None
        cards = v.get(kind + "/cards")
        if prof == "guigang":
            lim = 25000 if pol == "random" else 10000
            ok = None if m is None else m >= lim
            oks[pol] = ok
            goal, vs, met = f"≥ {lim:,}", "–", verdict(ok)
        else:
            g = v.get(f"{pol}-guigang")
            vs = ratio(None if (m is None or not g) else m / med(g))
            goal, met = "–", "–"
        lines.append(
            f"| {prof} | {pol} | {num(m)} | {rng(xs)} | {num(None if cards is None else cards / 1e6, '{:.2f}')} | "
            f"{vs} | {goal} | {met} |"
        )
    lines.append("")
    lines.append(regen("move", "hands") + ' The same runs give the section "Unchanged by the layer move".')
    lines.append("")
    ok = all_ok(oks.get("random"), oks.get("greedy"))
    lines.append(f"Verdict: random {verdict(oks.get('random'))}; greedy {verdict(oks.get('greedy'))}.")
    r, g = v.get("random-guigang"), v.get("greedy-guigang")
    return "\n".join(lines), (
        title,
        "random ≥ 25,000, greedy ≥ 10,000 hands/s",
        f"random {num(med(r) if r else None)}, greedy {num(med(g) if g else None)}",
        ok,
    )


@section("hearts", "hearts", ["hearts.json"])
def hearts_section(raw):
    d = raw.json("hearts.json") if raw else {}
    h, t = d.get("hearts", {}), d.get("tractor", {})
    title = "Random hands against OpenSpiel hearts"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 4, restated by issue 7): random full hands play ≥ 3× the cards per second of "
        "OpenSpiel's `hearts` under `pyspiel.evaluate_bots` with four uniform random bots, one core each. "
        "Anchor: hearts, timed in the same process, interleaved with tractor-engine "
        "(`python benches/compare_openspiel.py`; medians of the repeats)."
    )
    lines.append("")
    lines.append(
        f"Sizes: {num(d.get('games'))} hearts games and {num(d.get('hands'))} tractor hands per repeat, "
        f"{num(d.get('repeats'))} repeats; a hearts game is 52 cards and "
        f"{num(d.get('hearts_decisions_per_game'), '{:.1f}')} decisions, a tractor hand 216 cards and "
        f"{num(d.get('tractor_decisions_per_hand'), '{:.1f}')} decisions."
    )
    lines.append("")
    lines.append("| engine | games or hands/s | cards/s | decisions/s |")
    lines.append("|---|---:|---:|---:|")
    lines.append(
        f"| OpenSpiel `hearts`, `evaluate_bots`, 4 random bots (anchor) | {num(h.get('per_s'))} | "
        f"{num(h.get('cards_per_s'))} | {num(h.get('decisions_per_s'))} |"
    )
    lines.append(
        f'| tractor-engine `simulate(policies=("random",)*4, threads=1)` | {num(t.get("per_s"))} | '
        f"{num(t.get('cards_per_s'))} | {num(t.get('decisions_per_s'))} |"
    )
    r = {k: (t[k] / h[k] if k in t and k in h else None) for k in ("per_s", "cards_per_s", "decisions_per_s")}
    lines.append(
        f"| **tractor / hearts** | {ratio(r['per_s'])} | **{ratio(r['cards_per_s'])}** | {ratio(r['decisions_per_s'])} |"
    )
    lines.append("")
    lines.append(regen("hearts", "hearts"))
    lines.append("")
    c = r["cards_per_s"]
    ok = None if c is None else c >= 3
    lines.append(f"Verdict: {verdict(ok)} ({ratio(c)} hearts' cards/s; goal ≥ 3×).")
    return "\n".join(lines), (title, "≥ 3× hearts' cards/s, one core", f"{ratio(c)}", ok)


@section("threads", "threads", ["threads/1_*_random.txt"])
def threads_section(raw):
    v = {}
    if raw:
        for pol in ("random", "greedy"):
            ones = sorted(glob.glob(raw.path("threads", f"1_*_{pol}.txt")))
            pairs = []
            for p1 in ones:
                p2 = p1.replace(os.sep + "1_", os.sep + "2_")
                if os.path.exists(p2):
                    a = parse_throughput(read_text(p1))["hands_per_s"]
                    b = parse_throughput(read_text(p2))["hands_per_s"]
                    pairs.append((a, b))
            v[pol] = pairs
    title = "Bulk simulation from 1 to 2 threads"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 4): hands per second scale ≥ 1.8× from 1 to 2 threads. "
        "`target/release/examples/throughput POLICY HANDS T` (`simulate_range`, the engine of "
        "`tractor.simulate`), 1 and 2 threads in adjacent runs; each pair gives one speed-up."
    )
    lines.append("")
    lines.append(
        "| policy | pairs | 1 thread, hands/s (median) | 2 threads, hands/s (median) | speed-up (median of the pairs) | range | goal | met |"
    )
    lines.append("|---|---:|---:|---:|---:|---:|---|---|")
    oks = []
    for pol in ("random", "greedy"):
        pairs = v.get(pol)
        if pairs:
            sp = [b / a for a, b in pairs]
            m1, m2, s = med([a for a, _ in pairs]), med([b for _, b in pairs]), med(sp)
            r = rng(sp, "{:.2f}×")
        else:
            m1 = m2 = s = None
            r = TBD
        ok = None if s is None else s >= 1.8
        oks.append(ok)
        lines.append(
            f"| {pol} | {num(len(pairs) if pairs else None)} | {num(m1)} | {num(m2)} | {ratio(s)} | {r} | ≥ 1.80× | {verdict(ok)} |"
        )
    lines.append("")
    lines.append(regen("threads", "threads"))
    lines.append("")
    ok = all_ok(*oks)
    lines.append(f"Verdict: {verdict(ok)}.")
    sp = {pol: (med([b / a for a, b in v[pol]]) if v.get(pol) else None) for pol in ("random", "greedy")}
    return "\n".join(lines), (
        title,
        "≥ 1.8× from 1 to 2 threads",
        f"random {ratio(sp['random'])}, greedy {ratio(sp['greedy'])}",
        ok,
    )


FULL_MEMORY_HANDS = [100_000, 1_000_000, 10_000_000]


@section("memory", "memory", ["memory.json"])
def memory_section(raw):
    d = raw.json("memory.json") if raw else {}
    runs = d.get("runs") or [{"hands": None} for _ in FULL_MEMORY_HANDS]
    title = "Peak memory of a long simulate"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 4): the peak memory of `tractor simulate` stays flat up to 10 million hands; read here "
        "as a maximum RSS growing by under 10 bytes per extra hand (a run that kept every hand's result "
        "columns would grow by 33). `/usr/bin/time -v tractor simulate --hands H --policy "
        "random,random,random,random --threads 2 --quiet` (`python benches/peak_memory.py`)."
    )
    lines.append("")
    lines.append("| hands | max RSS (MiB) | wall (s) | hands/s |")
    lines.append("|---:|---:|---:|---:|")
    done = []
    for r in runs:
        rss, wall = r.get("max_rss_kib"), r.get("wall_s")
        if raw and rss is None:
            lines.append(
                f"| {num(r['hands'])} | skipped (predicted {num(r.get('skipped_predicted_s'))} s over the budget) | | |"
            )
            continue
        if rss is not None:
            done.append((r["hands"], rss))
        lines.append(
            f"| {num(r['hands'])} | {num(None if rss is None else rss / 1024, '{:,.1f}')} | "
            f"{num(wall, '{:,.1f}')} | {num(None if wall is None else r['hands'] / wall)} |"
        )
    growth = None
    if len(done) >= 2:
        (h0, r0), (h1, r1) = done[0], done[-1]
        growth = (r1 - r0) * 1024 / (h1 - h0)
        span = f"{h0:,} to {h1:,} hands"
    else:
        span = "the smallest to the largest run"
    lines.append("")
    lines.append(f"Growth from {span}: {num(growth, '{:.2f}')} bytes per extra hand.")
    lines.append("")
    lines.append(regen("memory", "memory"))
    lines.append("")
    largest = done[-1][0] if done else None
    full = largest is not None and largest >= 10_000_000
    ok = None if (growth is None or not full) else growth < 10
    if growth is not None and not full:
        lines.append(
            f"Verdict: not judged: this run went up to {largest:,} hands, not the 10 million of the goal."
        )
    else:
        lines.append(f"Verdict: {verdict(ok)}.")
    return "\n".join(lines), (
        title,
        "flat to 10 M hands (< 10 bytes per extra hand)",
        f"{num(growth, '{:.2f}')} bytes per extra hand",
        ok,
    )


PHASES = ["first trick", "mid-hand", "last trick"]
CARDS = 216 / 52  # a Tractor world deals 216 cards, a hearts world 52


@section("determinization", "search", ["search.json", "determinize.txt"])
def determinization_section(raw):
    d = raw.json("search.json")["determinization"] if raw else {}
    rs = parse_determinize(raw.text("determinize.txt")) if raw else {}
    title = "Exact worlds against hearts' resample_from_infostate"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 7): determinization ≥ 4× faster than OpenSpiel hearts' `resample_from_infostate` per "
        "card (a Tractor world deals 216 cards, a hearts world 52: the per-world ratio × 216 / 52), median ≤ 10 µs "
        "mid-hand. A world is complete and exact: `g.determinize_many(seat, 64, seed)` from Python, or one "
        "`g.determinize` call on a state seen before. Anchor: hearts' resampling at the same share of its hand "
        "played (`python benches/compare_search_openspiel.py`); the Rust search sampler from "
        "`examples/determinize_speed`."
    )
    lines.append("")
    lines.append(
        "| phase | tractor per world of 64, µs (median / p99) | one world per call, µs | first world on a fresh state, µs: "
        "the hand's first info set / a later one | "
        "hearts resample, µs (anchor) | hearts / tractor per world | per card (× 216 / 52) | Rust search sampler, µs |"
    )
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    per_world, per_card = [], []
    for ph in PHASES:
        x = d.get(ph, {})
        m, h = x.get("per_world_of_64_us"), x.get("hearts_resample_us")
        r = None if m is None else h / m
        per_world.append(r)
        per_card.append(None if r is None else r * CARDS)
        s = rs.get(ph, {}).get("search_med")
        lines.append(
            f"| {ph} | {num(m, '{:,.1f}')} / {num(x.get('per_world_of_64_p99_us'), '{:,.1f}')} | "
            f"{num(x.get('one_per_call_seen_us'), '{:,.1f}')} | {num(x.get('first_of_hand_us'), '{:,.1f}')} / "
            f"{num(x.get('one_us'), '{:,.1f}')} | {num(h, '{:,.1f}')} | "
            f"{ratio(r)} | {ratio(None if r is None else r * CARDS)} | {num(s, '{:,.1f}')} |"
        )
    lines.append("")
    lines.append(regen("search", "determinization") + " The same run gives the ISMCTS section.")
    lines.append("")
    mid = d.get("mid-hand", {}).get("per_world_of_64_us")
    ok_abs = None if mid is None else mid <= 10
    low_w = min(per_world) if all(r is not None for r in per_world) else None
    low_c = min(per_card) if all(r is not None for r in per_card) else None
    ok_w = None if low_w is None else low_w >= 4
    ok_c = None if low_c is None else low_c >= 4
    lines.append(
        f"Verdict: ≥ 4× per card, every phase: {verdict(ok_c)} (lowest {ratio(low_c)}; per world, lowest "
        f"{ratio(low_w)}); median ≤ 10 µs mid-hand: {verdict(ok_abs)} ({num(mid, '{:,.1f}')} µs)."
    )
    return "\n".join(lines), (
        title,
        "≥ 4× hearts per card; ≤ 10 µs mid-hand",
        f"per card {ratio(low_c)} (per world {ratio(low_w)}), mid-hand {num(mid, '{:,.1f}')} µs",
        f"{verdict(ok_c)}; ≤ 10 µs {verdict(ok_abs)}",
    )


@section("ismcts", "search", ["search.json"])
def ismcts_section(raw):
    d = raw.json("search.json") if raw else {}
    i, ro = d.get("ismcts", {}), d.get("rollouts", {})
    title = "ISMCTS against OpenSpiel's C++ ISMCTSBot"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 7): `tractor.search.ismcts` simulates ≥ 2× the cards per second of OpenSpiel's C++ "
        "`ISMCTSBot` on hearts (random rollout evaluator), one thread, mid-hand; cards simulated = "
        "iterations × cards left in the hands at the root. Anchor: the hearts bot, in the same run "
        f"(`python benches/compare_search_openspiel.py`, {num(d.get('iterations'))} iterations, "
        f"{num(d.get('positions'))} positions a side)."
    )
    lines.append("")
    lines.append("| one thread, mid-hand | iterations/s | cards simulated/s |")
    lines.append("|---|---:|---:|")
    lines.append(
        f"| tractor-engine `ismcts` (random rollouts) | {num(i.get('tractor_iterations_per_s'))} | {num(i.get('tractor_cards_per_s'))} |"
    )
    lines.append(
        f"| OpenSpiel C++ `ISMCTSBot` on hearts (anchor) | {num(i.get('hearts_iterations_per_s'))} | {num(i.get('hearts_cards_per_s'))} |"
    )
    ri = (i["tractor_iterations_per_s"] / i["hearts_iterations_per_s"]) if i else None
    rc = (i["tractor_cards_per_s"] / i["hearts_cards_per_s"]) if i else None
    lines.append(f"| **tractor / hearts** | {ratio(ri)} | **{ratio(rc)}** |")
    lines.append("")
    lines.append("Reported beside it, no threshold (issue 7), from the same mid-hand positions, one thread:")
    lines.append("")
    lines.append("| from mid-hand | per second |")
    lines.append("|---|---:|")
    lines.append(f"| random rollouts to the end of the hand | {num(ro.get('random_per_s'))} |")
    lines.append(f"| greedy rollouts | {num(ro.get('greedy_per_s'))} |")
    lines.append(
        f"| PIMC decisions, 32 worlds × 8 random rollouts | {num(ro.get('pimc_decisions_per_s'), '{:,.2f}')} |"
    )
    lines.append("")
    lines.append(regen("search", "ismcts"))
    lines.append("")
    ok = None if rc is None else rc >= 2
    lines.append(f"Verdict: {verdict(ok)} ({ratio(rc)} in cards simulated/s; goal ≥ 2×).")
    return "\n".join(lines), (title, "≥ 2× the C++ bot's cards simulated/s", f"{ratio(rc)}", ok)


@section("ismcts-threads", "ismcts-threads", ["ismcts_threads.json"])
def ismcts_threads_section(raw):
    d = raw.json("ismcts_threads.json") if raw else {}
    pimc = raw.json("pimc_threads.json") if raw and raw.has("pimc_threads.json") else {}
    title = "ISMCTS from 1 to 2 threads"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 7): ISMCTS ≥ 1.8× faster on 2 threads than on 1. `ismcts(g, iterations, threads=1|2, "
        "trees=2)` on the mid-hand positions of the previous section, alternating, every pair of results "
        "checked equal (`python benches/ismcts_threads.py`, `--search pimc`). Without load: pairs in which no "
        "thread waited for a CPU; they decide if half or more."
    )
    lines.append("")
    lines.append("| search | positions × repeats | 1 thread (s) | 2 threads (s) | speed-up | without load (pairs) | met |")
    lines.append("|---|---|---:|---:|---:|---:|---|")

    def row(name, r):
        s, q, n = r.get("speedup"), r.get("quiet_speedup"), r.get("quiet_pairs") or 0
        pairs = r["positions"] * r["repeats"] if r else 0
        ok = None if s is None else s >= 1.8 or (q is not None and q >= 1.8 and 2 * n >= pairs)
        pr = TBD if not r else f"{r['positions']} × {r['repeats']}"
        lines.append(
            f"| {name} | {pr} | {num(r.get('one_thread_s'), '{:.2f}')} | {num(r.get('two_threads_s'), '{:.2f}')} | "
            f"{ratio(s)} | {ratio(q) if q is not None else '–'} ({n}) | {verdict(ok)} |"
        )
        return ok

    ok = row(f"ISMCTS, {num(d.get('iterations'))} iterations", d)
    if pimc:
        row("PIMC, 32 × 8", pimc)
    lines.append("")
    lines.append("Cause of the old shortfall: [HISTORY §30](benches/HISTORY.md#30-ismcts-and-pimc-from-1-to-2-threads-issue-42-item-2).")
    lines.append("")
    lines.append(regen("ismcts-threads", "ismcts-threads"))
    lines.append("")
    lines.append(f"Verdict: {verdict(ok)}.")
    s = d.get("speedup")
    return "\n".join(lines), (title, "≥ 1.8× from 1 to 2 threads", f"{ratio(s)}", ok)


@section("vecenv", "vecenv", ["vecenv.json"])
def vecenv_section(raw):
    d = raw.json("vecenv.json") if raw else {}
    m = d.get("median", {})
    h = m.get("hearts")
    title = "VecEnv against OpenSpiel hearts' Python loop"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 8): `VecEnv` ≥ 1 M steps/s on 2 threads with masks and observations, the actions drawn "
        "from the masks in numpy, and ≥ 100× OpenSpiel hearts' Python loop (information-state tensor, "
        "legal-action mask, apply) per decision. Anchor: the hearts loop, interleaved in the same run "
        f"(`python benches/compare_learning_openspiel.py`: {num(d.get('envs'))} environments, "
        f"{num(d.get('steps'))} timed steps after {num(d.get('warmup'))}, medians of {num(d.get('repeats'))} repeats)."
    )
    lines.append("")
    lines.append("| loop | decisions/s | vs hearts' Python loop |")
    lines.append("|---|---:|---:|")
    lines.append(f"| OpenSpiel hearts, Python loop (anchor) | {num(h)} | 1.00× |")
    rows = [
        ("vec1", "`VecEnv`, 1 thread, whole loop (index draw in numpy)"),
        ("vec2", "**`VecEnv`, 2 threads, whole loop**"),
        ("in1", "`VecEnv.step` alone, 1 thread"),
        ("in2", "`VecEnv.step` alone, 2 threads"),
        ("game", "a single `Game` from Python (observation, mask, step)"),
    ]
    for k, name in rows:
        x = m.get(k)
        lines.append(f"| {name} | {num(x)} | {ratio(None if x is None else x / h)} |")
    lines.append("")
    lines.append(regen("vecenv", "vecenv") + " It also gives the Python row of the next section.")
    lines.append("")
    v2 = m.get("vec2")
    ok1 = None if v2 is None else v2 >= 1e6
    ok2 = None if v2 is None else v2 / h >= 100
    lines.append(f"Verdict: ≥ 1 M steps/s on 2 threads: {verdict(ok1)}; ≥ 100× hearts' loop: {verdict(ok2)}.")
    return "\n".join(lines), (
        title,
        "≥ 1 M steps/s on 2 threads; ≥ 100× hearts' loop",
        f"{num(v2)} steps/s, {ratio(None if v2 is None else v2 / h)}",
        all_ok(ok1, ok2),
    )


@section("observation", "observation", ["criterion/observe"])
def observation_section(raw):
    v = {}
    if raw:
        for ph in ("early", "middle", "late"):
            t, e = criterion(raw, f"observe/{ph}")
            v[ph] = t / e
        if raw.has("vecenv.json"):
            v["py"] = raw.json("vecenv.json")["median"].get("obs")
    title = "Observation tensors"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 8): `observation_tensor` costs ≤ 1 µs per call into a buffer in the batch path "
        "(the Rust `observe` that `VecEnv` calls), flat over the hand; read here as the slowest phase within "
        "1.5× of the fastest. Criterion bench `observe/{early,middle,late}` "
        "(`rust/core/benches/learning.rs`: positions by cards left in the hand to move)."
    )
    lines.append("")
    lines.append("| position in the hand | ns per observation | goal | met |")
    lines.append("|---|---:|---|---|")
    oks = []
    for ph in ("early", "middle", "late"):
        x = v.get(ph)
        ok = None if x is None else x <= 1000
        oks.append(ok)
        lines.append(f"| {ph} | {num(x, '{:,.1f}')} | ≤ 1,000 | {verdict(ok)} |")
    py = v.get("py")
    lines.append(
        f"| from Python, `Game.observation_tensor(seat, out=buf)` (not the batch path; from the VecEnv run) | "
        f"{num(None if py is None else py * 1e9)} | – | – |"
    )
    lines.append("")
    lines.append(regen("observation", "observation"))
    lines.append("")
    xs = [v.get(ph) for ph in ("early", "middle", "late")]
    flat = None if any(x is None for x in xs) else max(xs) <= 1.5 * min(xs)
    ok = all_ok(*oks, flat)
    lines.append(f"Verdict: {verdict(ok)} (≤ 1 µs: {verdict(all_ok(*oks))}; flat: {verdict(flat)}).")
    return "\n".join(lines), (
        title,
        "≤ 1 µs per call, flat over the hand",
        " / ".join(num(x, "{:,.0f}") for x in xs) + " ns",
        ok,
    )


FULL_RECORD_READS = [100_000, 1_000_000]


@section("records", "records", ["records.json"])
def records_section(raw):
    d = raw.json("records.json") if raw else {}
    reads = d.get("reads") or [{"records": None} for _ in FULL_RECORD_READS]
    title = "Records files"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 9): `tractor.read_records` streams a records file at ≥ 100,000 records/s from Python, "
        "in linear time and flat memory (under 10 bytes of RSS per extra record); `--out` streams its "
        "arrays to disk. `python benches/records_io.py`; each read in a fresh process, `replay=False`."
    )
    lines.append("")
    lines.append("| measurement | result | goal | met |")
    lines.append("|---|---:|---|---|")
    lines.append(
        f"| a records file of random hands | {num(d.get('bytes_per_hand'))} bytes per hand | – | – |"
    )
    w, wo = d.get("hands_per_s_records"), d.get("hands_per_s_plain")
    lines.append(
        f"| writing it: hands/s with records ÷ without (2 threads, medians) | {num(w)} ÷ {num(wo)} = "
        f"{num(None if w is None or not wo else w / wo, '{:.3f}')} | – | – |"
    )
    lines.append(
        f"| of which the file's writer (each frame checked, stamped with the run tag, written) | "
        f"{num(d.get('writer_frames_per_s'))} frames/s | – | – |"
    )
    oks = []
    for r in reads:
        secs = r.get("seconds")
        rate = None if secs is None else r["records"] / secs
        ok = None if rate is None else rate >= 100_000
        oks.append(ok)
        lines.append(
            f"| read {num(r['records'])} records ({num(r.get('file_mib'))} MiB) | {num(rate)} records/s, max RSS "
            f"{num(r.get('max_rss_mib'), '{:,.1f}')} MiB | ≥ 100,000 records/s | {verdict(ok)} |"
        )
    growth = None
    if d.get("reads") and len(reads) >= 2:
        a, b = reads[0], reads[-1]
        growth = (b["max_rss_mib"] - a["max_rss_mib"]) * 2**20 / (b["records"] - a["records"])
    flat = None if growth is None else growth < 10
    lines.append(
        f"| RSS growth from the smaller to the larger read | {num(growth, '{:.2f}')} bytes per extra record | "
        f"< 10 | {verdict(flat)} |"
    )
    lines.append(
        f"| replay into games (`read_records(path)`, every action checked) | "
        f"{num(d.get('replay_games_per_s'))} games/s | – | – |"
    )
    lines.append(
        f"| `tractor simulate --hands {num(d.get('out_hands'))} --out f.npz` (arrays streamed) | max RSS "
        f"{num(d.get('out_streamed_rss_mib'), '{:,.1f}')} MiB | – | – |"
    )
    lines.append(
        f"| the same with `--plot` (arrays kept in memory) | max RSS {num(d.get('out_plot_rss_mib'), '{:,.1f}')} MiB | – | – |"
    )
    lines.append("")
    lines.append(regen("records", "records"))
    lines.append("")
    ok = all_ok(*oks, flat)
    lines.append(f"Verdict: {verdict(ok)}.")
    rate = None if not d.get("reads") else reads[-1]["records"] / reads[-1]["seconds"]
    return "\n".join(lines), (
        title,
        "≥ 100,000 records/s, flat memory",
        f"{num(rate)} records/s, {num(growth, '{:.2f}')} B/record",
        ok,
    )


@section("agents", "agents", ["agents.json"])
def agents_section(raw):
    d = raw.json("agents.json") if raw else {}
    title = "Arena and network agents"
    lines = [f"## {title}", ""]
    lines.append(
        "Goals (issue 20): a 2,000-deal duplicate round-robin of four cheap policies in under a minute on "
        "2 cores; a network decision's cost against greedy's (≤ 5 µs); hands per second with network "
        "players against greedy players, beside greedy on every seat (`python benches/agents_speed.py`)."
    )
    lines.append("")
    lines.append("| measurement | result | goal | met |")
    lines.append("|---|---:|---|---|")
    rr = med(d.get("round_robin_s") or [])
    ok_rr = None if rr is None else rr < 60
    pols = ", ".join(f"`{p}`" for p in d.get("policies", [])) or TBD
    lines.append(
        f"| round-robin of {pols} on {num(d.get('deals'))} deals, 2 threads | {num(rr, '{:.1f}')} s | < 60 s | "
        f"{verdict(ok_rr)} |"
    )
    cost = d.get("cost_us") or {}
    greedy = cost.get("greedy")
    oks = [ok_rr]
    for name in [p for p in d.get("policies", []) if p not in ("random", "greedy")] or [TBD]:
        us = cost.get(name)
        ok = None if us is None else us <= 5
        oks.append(ok)
        lines.append(
            f"| `{name}`: cost per decision (greedy: {num(greedy, '{:.2f}')} µs) | {num(us, '{:.2f}')} µs, "
            f"{ratio(None if us is None or not greedy else us / greedy)} greedy's | ≤ 5 µs | {verdict(ok)} |"
        )
        h = (d.get("hands_per_s") or {}).get(name, {})
        net, anchor = med(h.get("net_vs_greedy") or []), med(h.get("greedy") or [])
        lines.append(
            f"| `{name}`'s team against greedy, one thread | {num(net)} hands/s "
            f"({ratio(None if not net or not anchor else net / anchor)} of greedy on every seat, {num(anchor)}) | – | – |"
        )
    lines.append("")
    lines.append(regen("agents", "agents"))
    lines.append("")
    ok = all_ok(*oks)
    lines.append(f"Verdict: {verdict(ok)}.")
    return "\n".join(lines), (title, "round-robin < 60 s; a network decision ≤ 5 µs", f"{num(rr, '{:.1f}')} s", ok)


@section("solve", "solve", ["solve.json"])
def solve_section(raw):
    d = raw.json("solve.json") if raw else {}
    rows = d.get("rows") or [{"cards": k} for k in range(2, 9)]
    title = "The open-card solver"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issues 22, 42): `tractor.search.solve` (every play's exact value) reaches mid-hand: 8 cards "
        "a hand ≤ 50 ms median, 10 ≤ 1 s; by cards left in every hand, at the start of a trick of hands "
        "played by greedy (`python benches/solve_speed.py`, one core). Anchor, in the same run: a plain "
        "alpha-beta in Python over `Game.clone`/`apply`, the value only (each solve is checked against it)."
    )
    lines.append("")
    lines.append("| cards a hand | solve, every play (median) | nodes a position | nodes/s | Python alpha-beta, the value only | solver ÷ Python |")
    lines.append("|---:|---:|---:|---:|---:|---:|")
    at = {}
    for r in rows:
        ms, py = r.get("solve_ms"), r.get("python_ms")
        at[r["cards"]] = ms
        lines.append(
            f"| {r['cards']} | {num(ms, '{:,.2f}')} ms | {num(r.get('nodes_per_position'))} | {num(r.get('nodes_per_s'))} | "
            f"{num(py, '{:,.2f}') + ' ms' if py is not None else '–'} | "
            f"{ratio(None if py is None or not ms else py / ms) if py is not None else '–'} |"
        )
    eight, ten = at.get(8), at.get(10)
    ok = None if eight is None else eight <= 50 and ten is not None and ten <= 1000
    lines.append("")
    load = d.get("load")
    lines.append(
        (f"Load {load[0]:.1f} → {load[1]:.1f} (1-minute). " if load else "")
        + "Old ÷ new in pairs, 9–10 cards, what each step gave: HISTORY.md "
        "[§28](benches/HISTORY.md#28-the-open-card-solver-towards-mid-hand-issue-42), "
        "[§29](benches/HISTORY.md#29-the-open-card-solver-fourth-pass-issue-42-item-4)."
    )
    lines.append("")
    lines.append(regen("solve", "solve"))
    lines.append("")
    lines.append(f"Verdict: {verdict(ok)}.")
    return "\n".join(lines), (title, "8 cards a hand ≤ 50 ms, 10 ≤ 1 s (every play)", f"{num(eight, '{:,.0f}')} ms at 8", ok)


@section("budgets", "budgets", ["budgets.json"])
def budgets_section(raw):
    d = raw.json("budgets.json") if raw else {}
    rows = d.get("rows") or [{"budget_s": b} for b in (0.01, 0.1)]
    title = "Searches at fixed time budgets"
    lines = [f"## {title}", ""]
    lines.append(
        "Goal (issue 22): searches with a time budget per decision, and their strength against greedy "
        "(`python benches/search_budgets.py`): `ismcts:iterations=10000000,rollout=greedy,time=B` against "
        "`greedy` in duplicate on `eval-v1`'s first deals, 2 threads (`tractor.arena.play`); the iterations a "
        "decision reaches on mid-hand positions, one thread. The threshold for the verdict: the 100 ms "
        "search beats greedy (interval above 0)."
    )
    lines.append("")
    lines.append("| budget per decision | iterations reached (median, mid-hand) | deals | levels per deal against greedy (95%) |")
    lines.append("|---:|---:|---:|---|")
    ok = None
    for r in rows:
        lpd, ci = r.get("levels_per_deal"), r.get("ci95")
        if r["budget_s"] == 0.1 and ci is not None:
            ok = ci[0] > 0
        lines.append(
            f"| {num(r['budget_s'] * 1000 if r.get('budget_s') is not None else None, '{:,.0f}')} ms | "
            f"{num(r.get('iterations_median'))} | {num(r.get('deals'))} | "
            f"{num(lpd, '{:+.3f}')} [{num(ci[0] if ci else None, '{:+.3f}')}, {num(ci[1] if ci else None, '{:+.3f}')}] |"
        )
    lines.append("")
    lines.append(regen("budgets", "budgets"))
    lines.append("")
    lines.append(f"Verdict: {verdict(ok)}.")
    last = rows[-1] if rows else {}
    return "\n".join(lines), (title, "100 ms per decision beats greedy", f"{num(last.get('levels_per_deal'), '{:+.3f}')} levels/deal", ok)


@section("learner", "learner", ["learner.json"])
def learner_section(raw):
    d = raw.json("learner.json") if raw else {}
    title = "A learner's steps, threads and Python policies"
    lines = [f"## {title}", ""]
    lines.append(
        "Goals (issue 21): what `auto_forced` saves a learner, and `VecEnv` from 1 to 2 threads with uint8 "
        "observations ≥ 1.6×; what a teacher and a Python callable at the table cost "
        "(`python benches/learner_speed.py`; medians of the repeats)."
    )
    lines.append("")
    runs = d.get("learner") or {}

    def m(kind, key):
        return med([r[key] for r in runs.get(kind, [])])

    plain_s, plain_h = m("plain", "steps_per_s"), m("plain", "hands_per_s")
    lines.append("| learner loop (one thread) | learner steps/s | hands/s | learner steps per hand | hands/s vs plain |")
    lines.append("|---|---:|---:|---:|---:|")
    for kind, label in (("plain", "every step (anchor)"), ("auto_forced", "`auto_forced=True`: real choices only"),
                        ("teacher", "every step, `teacher=\"greedy\"`")):
        h, st = m(kind, "hands_per_s"), m(kind, "steps_per_s")
        lines.append(f"| {label} | {num(st)} | {num(h, '{:,.1f}')} | {num(None if not h else st / h, '{:,.1f}')} | "
                     f"{ratio(None if not h or not plain_h else h / plain_h)} |")
    auto_st, auto_h = m("auto_forced", "steps_per_s"), m("auto_forced", "hands_per_s")
    fewer = None if not (plain_s and plain_h and auto_st and auto_h) else (plain_s / plain_h) / (auto_st / auto_h)
    lines.append("")
    lines.append(
        f"With `auto_forced` a learner decides {ratio(fewer)} fewer times per hand; a learner whose step costs "
        "more than the environment's (a network's forward pass) gains up to that factor."
    )
    lines.append("")
    th = d.get("threads") or {}
    lines.append("| `VecEnv.step`, 1,024 self-play environments | 1 thread, decisions/s | 2 threads | 2 threads / 1 |")
    lines.append("|---|---:|---:|---:|")
    ok_u8 = None
    for dtype in ("float32", "uint8"):
        rs = th.get(dtype) or []
        one, two = med([r["1"] for r in rs]), med([r["2"] for r in rs])
        rt = med([r["2"] / r["1"] for r in rs])
        if dtype == "uint8" and rt is not None:
            ok_u8 = rt >= 1.6
        lines.append(f"| {dtype} observations | {num(one)} | {num(two)} | {ratio(rt)} |")
    lines.append("")
    cal = d.get("callable") or {}
    native = med(cal.get("native") or [])
    lines.append("| a network's team against greedy, `simulate`, one thread | hands/s | vs native |")
    lines.append("|---|---:|---:|")
    for kind, label in (("native", "`net:PATH`, 128/32 units (anchor)"),
                        ("float_callable", "the same network as a float32 numpy callable"),
                        ("first_callable", "a callable without a model (first allowed id): the table's own cost")):
        c = med(cal.get(kind) or [])
        lines.append(f"| {label} | {num(c)} | {ratio(None if not c or not native else c / native)} |")
    lines.append("")
    lines.append(regen("learner", "learner"))
    lines.append("")
    lines.append(f"Verdict: uint8 observations, 1 → 2 threads ≥ 1.6×: {verdict(ok_u8)}.")
    auto_h = m("auto_forced", "hands_per_s")
    gain = None if not auto_h or not plain_h else auto_h / plain_h
    return "\n".join(lines), (title, "uint8 VecEnv 1 → 2 threads ≥ 1.6×; auto_forced's gain",
                               f"{ratio(med([r['2'] / r['1'] for r in th.get('uint8') or []]))}, auto_forced {ratio(gain)} hands/s",
                               ok_u8)


MOVE_ROWS = [
    # (key, label, higher is better)
    ("random-guigang", "guigang random, hands/s", True),
    ("greedy-guigang", "guigang greedy, hands/s", True),
    ("random-competition", "competition random, hands/s", True),
    ("greedy-competition", "competition greedy, hands/s", True),
    ("ismcts", "ISMCTS iterations/s (`search_speed`)", True),
    ("pimc", "PIMC decisions/s, 32 × 8 (`search_speed`)", True),
    ("next-world", "next exact world mid-hand, µs (`determinize_speed`)", False),
    ("sampler", "search sampler mid-hand, µs (`determinize_speed`)", False),
]


def move_values(raw: Raw):
    v = {}
    for tree in ("new", "base"):
        for kind, _, _ in KINDS:
            v[(tree, kind)] = [parse_throughput(t)["hands_per_s"] for t in move_runs(raw, tree, kind)]
        s = [SEARCH.search(t) for t in move_runs(raw, tree, "search")]
        v[(tree, "ismcts")] = [float(m.group(1)) for m in s if m]
        v[(tree, "pimc")] = [float(m.group(2)) for m in s if m]
        dets = [parse_determinize(t) for t in move_runs(raw, tree, "determinize")]
        v[(tree, "next-world")] = [x["mid-hand"]["next_med"] for x in dets]
        v[(tree, "sampler")] = [x["mid-hand"]["search_med"] for x in dets]
    return v


@section("layer-move", "move", ["move/base_*_random-guigang.txt"])
def layer_move_section(raw, base_rev=None):
    v = move_values(raw) if raw else {}
    rounds = len(v.get(("new", "random-guigang"), [])) or None
    base = base_rev or (read_machine(raw.out).get("baseline") if raw else None) or BASE_REV_DEFAULT
    base = re.split(r"[\s,(]", base.strip())[0]
    title = "Unchanged by the layer move"
    lines = [f"## {title}", ""]
    lines.append(
        f"Goal (issue 19): throughput unchanged within noise by the move of `rust/core/src` into layers: "
        f"ratios against `{base}`, the tree before the move (`git archive`, built beside this one with its own "
        f"copies of the examples), the two trees alternately, {num(rounds)} rounds, medians. Unchanged: no "
        "ratio below 0.95×; a row above 1.05× is marked faster."
    )
    lines.append("")
    lines.append(
        f"| measurement | `{base}`: median (range) | this tree: median (range) | speed, this tree / `{base}` | unchanged |"
    )
    lines.append("|---|---:|---:|---:|---|")
    oks = []
    for key, label, higher in MOVE_ROWS:
        b, n = v.get(("base", key)), v.get(("new", key))
        fmt = "{:,.0f}" if higher and key != "pimc" else "{:,.2f}"
        if b and n:
            mb, mn = med(b), med(n)
            r = mn / mb if higher else mb / mn
        else:
            mb = mn = r = None
        ok = None if r is None else r >= 0.95
        oks.append(ok)

        def cell(m, xs, fmt=fmt):
            return TBD if m is None else f"{fmt.format(m)} ({rng(xs, fmt)})"

        yes = TBD if ok is None else "**slower**" if not ok else "faster" if r > 1.05 else "yes"
        lines.append(f"| {label} | {cell(mb, b)} | {cell(mn, n)} | {ratio(r)} | {yes} |")
    lines.append("")
    lines.append(regen("move", "layer-move") + ' The same runs give "Hands per second on one core".')
    lines.append("")
    ok = all_ok(*oks)
    lines.append(f"Verdict: {verdict(ok)}.")
    rs = []
    for key, _, higher in MOVE_ROWS:
        b, n = v.get(("base", key)), v.get(("new", key))
        if b and n:
            rs.append(med(n) / med(b) if higher else med(b) / med(n))
    result = TBD if not rs else f"ratios {min(rs):.2f}–{max(rs):.2f}×"
    return "\n".join(lines), (title, "no ratio below 0.95×", result, ok)


ORDER = [
    "rules",
    "rules-competition",
    "game",
    "hands",
    "hearts",
    "threads",
    "memory",
    "determinization",
    "ismcts",
    "ismcts-threads",
    "solve",
    "budgets",
    "vecenv",
    "observation",
    "records",
    "agents",
    "learner",
    "layer-move",
]
assert sorted(ORDER) == sorted(s[0] for s in SECTIONS)
BY_NAME = {s[0]: s for s in SECTIONS}


# -- the page ------------------------------------------------------------------------------------


def read_machine(out: str) -> dict:
    d, loads, reruns = {}, [], []
    try:
        with open(os.path.join(out, "machine.txt")) as f:
            for line in f:
                k, _, val = line.rstrip("\n").partition(": ")
                if k.startswith("load before "):
                    loads.append((k[len("load before ") :], val))
                elif k == "rerun":
                    reruns.append(val)
                else:
                    d.setdefault(k, val)
    except FileNotFoundError:
        pass
    d["loads"], d["reruns"] = loads, reruns
    return d


def machine_section(out):
    m = read_machine(out) if out else {"loads": [], "reruns": []}
    g = lambda k: m.get(k) or TBD
    if out and "date" not in m and "started" in m:
        m["date"] = m["started"]
    first = [float(v.split()[0]) for _, v in m["loads"] if v.split()]
    load = (
        TBD
        if not first
        else f"{min(first):.2f}–{max(first):.2f} (1-minute average before each step; each step's in `$OUT/machine.txt`)"
    )
    lines = ["## The run", "", "| | |", "|---|---|"]
    lines.append(f"| date | {g('date')} (run took {g('duration')}) |")
    lines.append(f"| commit | {g('HEAD')} |")
    lines.append(f"| baseline (last section) | {g('baseline')} |")
    lines.append(f"| machine | {g('nproc')} cores; {g('cpu')}; {g('memory')} memory; {g('kernel')} |")
    lines.append(f"| toolchain | {g('rustc')}; {g('python')}; {g('packages')} |")
    lines.append(f"| load average | {load} |")
    lines.append(f"| command | `{g('command')}` |")
    if m["reruns"]:
        lines.append(f"| steps run again | {'; '.join(m['reruns'])} |")
    if out and m.get("quick", "no") != "no":
        lines.append(
            "| **QUICK** | **a smoke run with small sizes: these numbers are not for BENCHMARKS.md** |"
        )
    return "\n".join(lines)


HEADER = """# Benchmarks

One page, one run: every table comes from one run of `benches/run_all.sh` on one machine at one
commit (the block below), with each goal's anchor (OpenSpiel's hearts, or the tree before the
layer move) measured in the same run. Each section gives one goal, its table, the command that
regenerates it and the verdict. Earlier sessions, the trials and the reasoning behind each
optimisation are in [benches/HISTORY.md](benches/HISTORY.md).

```sh
. .venv/bin/activate                       # or VENV=path/to/venv; open_spiel and pytest-benchmark installed
OUT=/tmp/tractor-bench benches/run_all.sh  # about 20 minutes on 2 cores
cp /tmp/tractor-bench/BENCHMARKS.md .      # this page, written by benches/tables.py --page
```

The run builds this tree (`SKIP_MATURIN=1` skips `maturin develop --release`) and the baseline
`aa2650d` (`git archive` into `$OUT/base`), then runs each step on an otherwise idle machine: raw
outputs in `$OUT/raw/`, one section per file in `$OUT/tables/`, the machine and the load before
each step in `$OUT/machine.txt`. `benches/run_all.sh STEP ...` reruns steps into the same `$OUT`;
`QUICK=1` is a smoke run whose numbers are not for this page. Medians; one thread unless a row
says otherwise."""


H = "benches/HISTORY.md#"
NOT_HERE = f"""## Not on this page

- The wheel's size and build time (issue 10, no threshold; they need zig and a cold build,
  `time scripts/build_dist.sh`): [benches/HISTORY.md §7]({H}7-the-release-wheel-scriptsbuild_distsh-ciwheel_testsh).
- Playing strength in duplicate play (issue 7), a result rather than a speed: [§9]({H}9-search-determinization-rollouts-pimc-ismcts-issue-search),
  [§14]({H}14-the-final-run-of-2026-12-01-greedy-determinization-ismcts-vecenv-issues-search-learning); the agents' ladder
  (issue 20) is in [docs/arena.md](docs/arena.md#the-ladder).
- The learning example's result (issue 8; `python examples/train_bc.py`): [§13]({H}13-learning-example-examplestrain_bcpy).
- The batch calls on 1 and 2 threads (no goal; `python benches/batch_threads.py`): [§11]({H}11-batch-calls-in-parallel-benchesbatch_threadspy).
- The commentary and trials behind a section (worlds that keep who was asked, the learned
  weights, the value head): [§19–§22]({H}19-exact-worlds-since-they-keep-who-was-asked-issue-22)."""


def summary_section(rows):
    lines = ["## The goals at a glance", "", "| goal | threshold | this run | met |", "|---|---|---|---|"]
    for title, thr, result, ok in rows:
        okc = ok if isinstance(ok, str) else verdict(ok)
        lines.append(f"| [{title}](#{slugify(title)}) | {thr} | {result} | {okc} |")
    return "\n".join(lines)


def wrap_md(md: str, width: int = 100) -> str:
    """Paragraph lines wrapped at ``width``; headings, table rows and code blocks as they are."""
    import textwrap

    out, code = [], False
    for line in md.split("\n"):
        if line.startswith("```"):
            code = not code
        if code or line.startswith(("|", "#", "```")) or len(line) <= width:
            out.append(line)
        else:
            out.append(textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False))
    return "\n".join(out)


def render(name, raw):
    _, _, _, fn = BY_NAME[name]
    md, row = fn(raw)
    return wrap_md(md), row


def has_inputs(raw: Raw, name: str) -> bool:
    return all(raw.has(p) for p in BY_NAME[name][2])


def write_tables(out: str, names) -> int:
    """Writes OUT/tables/NAME.md for each of ``names``, then the summary (a row per table file
    present, from the same raw outputs) and the run's block."""
    raw = Raw(out)
    tdir = os.path.join(out, "tables")
    os.makedirs(tdir, exist_ok=True)
    bad = 0
    for name in names:
        if not has_inputs(raw, name):
            print(f"tables.py: {name}: raw outputs missing ({', '.join(BY_NAME[name][2])})", file=sys.stderr)
            bad += 1
            continue
        try:
            md, _ = render(name, raw)
        except Exception as e:  # a broken raw file names itself; the other tables still get written
            print(f"tables.py: {name}: {type(e).__name__}: {e}", file=sys.stderr)
            bad += 1
            continue
        with open(os.path.join(tdir, f"{name}.md"), "w") as f:
            f.write(md + "\n")
    rows = []
    for name in ORDER:
        row = None
        if os.path.exists(os.path.join(tdir, f"{name}.md")) and has_inputs(raw, name):
            try:
                row = render(name, raw)[1]
            except Exception:
                pass
        rows.append(row or template_row(name))
    with open(os.path.join(tdir, "summary.md"), "w") as f:
        f.write(summary_section(rows) + "\n")
    with open(os.path.join(tdir, "machine.md"), "w") as f:
        f.write(machine_section(out) + "\n")
    return bad


def template_row(name):
    return render(name, None)[1]


def page(out) -> str:
    parts = [HEADER]
    if out is None:
        parts.append(
            "> **Not measured yet:** every `TBD` below is filled by the first full run "
            "of `benches/run_all.sh`,\n> whose `$OUT/BENCHMARKS.md` replaces this file."
        )
        parts.append(machine_section(None))
        parts.append(summary_section([template_row(n) for n in ORDER]))
        parts += [render(n, None)[0] for n in ORDER]
    else:
        tdir = os.path.join(out, "tables")
        for name in ["machine", "summary"] + ORDER:
            p = os.path.join(tdir, f"{name}.md")
            if os.path.exists(p):
                parts.append(read_text(p).rstrip("\n"))
            else:  # not measured in this run: the section as a template, and why
                md = render(name, None)[0] if name in BY_NAME else ""
                parts.append(md + f"\n\n*Not measured in this run (no `$OUT/tables/{name}.md`).*")
    parts.append(NOT_HERE)
    return "\n\n".join(parts) + "\n"


def main(argv) -> int:
    if argv and argv[0] == "--page":
        if argv[1:] == ["--template"]:
            sys.stdout.write(page(None))
            return 0
        if len(argv) != 2:
            print(__doc__, file=sys.stderr)
            return 2
        sys.stdout.write(page(argv[1]))
        return 0
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    out, names = argv[0], argv[1:] or ORDER
    if names == ["--blocks"]:  # only the summary and the run's block
        names = []
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        print(f"tables.py: unknown table(s) {unknown}; the tables: {' '.join(ORDER)}", file=sys.stderr)
        return 2
    return 1 if write_tables(out, names) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
