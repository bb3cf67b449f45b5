"""The ``tractor`` command: ``simulate`` (the main job), ``merge`` and ``demo``."""

from __future__ import annotations

import argparse
import sys
import time
from typing import List, Optional

from ._core import __version__
from .errors import TractorError


class Progress:
    """A one-line progress bar on stderr with rate and ETA."""

    def __init__(self, total: int, what: str = "hands", stream=sys.stderr, enabled: bool = True) -> None:
        self.total, self.what, self.stream, self.enabled = total, what, stream, enabled
        self.t0 = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        dt = max(time.perf_counter() - self.t0, 1e-9)
        rate = done / dt
        eta = (total - done) / rate if rate > 0 else float("inf")
        width = 30
        fill = int(width * done / total) if total else width
        bar = "#" * fill + "." * (width - fill)
        self.stream.write(
            f"\r[{bar}] {100 * done / max(total, 1):5.1f}% {done:,}/{total:,} {self.what}  "
            f"{rate:,.0f} {self.what}/s  ETA {eta:,.0f}s "
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def _shard(text: Optional[str], total: int):
    if not text:
        return 0, total
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise TractorError(f"--shard takes i/n (e.g. 0/8), got {text!r}") from None
    if not (n >= 1 and 0 <= i < n):
        raise TractorError(f"--shard i/n needs 0 <= i < n, got {text!r}")
    a, b = total * i // n, total * (i + 1) // n
    return a, b - a


def plot_scores(results, path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TractorError('--plot needs matplotlib: pip install "tractor-engine[plot]"') from None
    played = ~results.stopped
    scores = results.score[played]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.hist(scores, bins=80, color="#4477aa")
    for x, label in [(5, "5"), (80, "80"), (160, "160: take over"), (240, "240"), (320, "320"), (400, "400")]:
        ax.axvline(x, color="#cc3311", lw=1, ls="--")
        ax.text(x, ax.get_ylim()[1] * 0.95, f" {label}", color="#cc3311", fontsize=8, va="top")
    ax.set_xlabel("defenders' final score (R7.3)")
    ax.set_ylabel("hands")
    ax.set_title(f"{len(scores):,} hands, policies {','.join(results.policies)}, R7.4 thresholds marked")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def cmd_simulate(a: argparse.Namespace) -> int:
    from .sim import simulate

    total = a.matches if a.matches is not None else a.hands
    start, count = _shard(a.shard, total)
    what = "matches" if a.matches is not None else "hands"
    bar = Progress(count, what, enabled=not a.quiet)
    kwargs = dict(
        policies=a.policy, seed=a.seed, threads=a.threads, profile=a.profile, start=start, progress=bar,
        chunk=a.chunk, backend=a.backend, address=a.address,
    )
    if a.matches is not None:
        res = simulate(matches=count, max_hands=a.max_hands, **kwargs)
    else:
        # without --out or --plot only the running summary is kept: flat memory at any size
        keep = bool(a.out or a.plot) or a.backend == "ray"
        res = simulate(hands=count, duplicate=a.duplicate, records=a.records, keep_arrays=keep, **kwargs)
    bar.close()
    if res.interrupted:
        finished = res.summary()["hands" if a.matches is None else "matches"]
        print(f"interrupted: summarising the {finished:,} {what} that finished", file=sys.stderr)
    print(res)
    if a.out:
        res.to_npz(a.out)
        print(f"wrote {a.out}")
    if a.plot:
        if a.matches is not None:
            raise TractorError("--plot draws hand scores: use it with --hands")
        plot_scores(res, a.plot)
        print(f"wrote {a.plot}")
    return 130 if res.interrupted else 0


def cmd_merge(a: argparse.Namespace) -> int:
    from .sim import load, merge

    res = merge([load(p) for p in a.inputs])
    res.to_npz(a.output)
    print(res)
    print(f"wrote {a.output}")
    return 0


def cmd_demo(a: argparse.Namespace) -> int:
    import tractor

    ctx = tractor.Context(level=10, trump="h")
    hand = "As Qs Js 9s 9s 5s 3s 4h 7c"
    lead = "4s 4s 5s 5s"
    print(f"{ctx}; follower holds {hand}; lead {lead}")
    print("  ladder demands:", ctx.follow_requirement(hand, lead))
    print("  legal follows:", ctx.count_legal_follows(hand, lead))
    print("  a random one:", tractor.format(ctx.random_follow(hand, lead, seed=1)))
    print("  As Qs Js 3s ->", ctx.follow_error(hand, lead, "As Qs Js 3s"))
    g = tractor.Game(seed=a.seed)
    g.play_random(a.seed)
    print(tractor.playthrough(g).splitlines()[-1])
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="tractor", description="Guigang Tractor rule engine")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("simulate", help="simulate many hands (or matches) and summarise")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--hands", type=int, default=10_000)
    g.add_argument("--matches", type=int, default=None)
    s.add_argument("--policy", default="greedy,random,greedy,random", help="four policies, one per seat")
    s.add_argument("--threads", type=int, default=None, help="worker threads (default: all cores)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--profile", default="guigang", choices=["guigang", "nanning"])
    s.add_argument("--shard", default=None, help="i/n: run only the i-th of n equal index ranges")
    s.add_argument("--duplicate", action="store_true", help="play every deal twice, seats rotated")
    s.add_argument("--max-hands", type=int, default=1000, help="cap per match (with --matches)")
    s.add_argument("--records", default=None, help="stream compact hand records to this file")
    s.add_argument("--out", default=None, help="save per-hand arrays (.npz)")
    s.add_argument("--plot", default=None, help="histogram of the defenders' scores (.png)")
    s.add_argument("--chunk", type=int, default=20_000, help="hands per chunk (progress, Ctrl-C granularity)")
    s.add_argument("--backend", default="local", choices=["local", "ray"])
    s.add_argument("--address", default=None, help="Ray cluster address (with --backend ray)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(fn=cmd_simulate)
    m = sub.add_parser("merge", help="merge shard outputs (.npz) of one run")
    m.add_argument("inputs", nargs="+")
    m.add_argument("-o", "--output", required=True)
    m.set_defaults(fn=cmd_merge)
    d = sub.add_parser("demo", help="a short tour of the rules API")
    d.add_argument("--seed", type=int, default=7)
    d.set_defaults(fn=cmd_demo)
    a = p.parse_args(argv)
    try:
        return a.fn(a)
    except TractorError as e:
        print(f"tractor: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
