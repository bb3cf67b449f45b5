"""The ``tractor`` command: ``simulate`` (the main job), ``arena``, ``merge``, ``view``,
``play`` and ``demo``."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
import warnings
from contextlib import contextmanager
from typing import Any, Iterator, List, Optional

from . import _core
from ._core import __version__
from ._args import _policy
from ._outputs import replacing
from .errors import InvalidArgument, TractorError
from .rules import PROFILES


class Progress:
    """Progress on stderr with rate and ETA: a bar redrawn in place on a terminal, else (a log
    file, a pipe) one plain line every `interval` seconds and at the end."""

    def __init__(self, total: int, what: str = "hands", stream=None, enabled: bool = True,
                 interval: float = 10.0) -> None:
        self.total, self.what, self.enabled, self.interval = total, what, enabled, interval
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.tty = bool(self.stream.isatty())
        except (AttributeError, ValueError, OSError):
            self.tty = False
        self.t0 = time.perf_counter()
        self.last: Optional[float] = None
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        dt = max(now - self.t0, 1e-9)
        rate = done / dt
        eta = (total - done) / rate if rate > 0 else float("inf")
        pct = 100 * done / max(total, 1)
        if self.tty:
            width = 30
            fill = int(width * done / total) if total else width
            bar = "#" * fill + "." * (width - fill)
            self.stream.write(
                f"\r[{bar}] {pct:5.1f}% {done:,}/{total:,} {self.what}  "
                f"{rate:,.0f} {self.what}/s  ETA {eta:,.0f}s "
            )
            self.drawn = True
        else:
            if self.last is not None and now - self.last < self.interval and done < total:
                return
            self.last = now
            self.stream.write(
                f"progress: {done:,}/{total:,} {self.what} ({pct:.1f}%), {rate:,.0f} {self.what}/s, "
                f"ETA {eta:,.0f}s\n"
            )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty and self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def _shard(text: Optional[str], total: int):
    if not text:
        return 0, total
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise InvalidArgument(f"--shard takes i/n (e.g. 0/8), got {text!r}") from None
    if not (n >= 1 and 0 <= i < n):
        raise InvalidArgument(f"--shard i/n needs 0 <= i < n, got {text!r}")
    a, b = total * i // n, total * (i + 1) // n
    return a, b - a


def _need_matplotlib():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InvalidArgument('--plot needs matplotlib: pip install "tractor-engine[plot]"') from None
    return plt


def _writable(option: str, path: str, suffixes: Optional[List[str]] = None) -> None:
    """Refuses, before any work, a file option whose file could not be written."""
    if not path:
        raise InvalidArgument(f"{option} needs a file name")
    if "\0" in path:
        raise InvalidArgument(f"{option}: a file name cannot hold NUL characters")
    if os.path.isdir(path):
        raise InvalidArgument(f"{option} {path}: is a folder, not a file")
    folder = os.path.dirname(path) or os.curdir  # as the system reads it: in "no/../x" the folder "no/.." is not there
    if not os.path.isdir(folder):
        raise InvalidArgument(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidArgument(f"{option} {path}: the folder {folder} is not writable")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise InvalidArgument(f"{option} {path}: the file exists and is not writable")
    if suffixes and not any(path.lower().endswith(x) for x in suffixes):
        raise InvalidArgument(f"{option} {path}: the name must end in {' or '.join(suffixes)}")


def plot_scores(results, path: str) -> None:
    """A histogram of the defenders' scores, on the multiples of 5 they take (R7.1), split by
    which team defended: the two teams' policies make the two humps."""
    np = __import__("numpy")
    plt = _need_matplotlib()
    played = ~results.stopped
    scores = results.score[played].astype(np.int64)
    defending = (results.banker[played].astype(np.int64) + 1) % 2  # the team that did not bank
    fig, ax = plt.subplots(figsize=(9, 4.5))
    if len(scores):
        lo, hi = int(scores.min()) // 5 * 5, int(scores.max()) // 5 * 5
        bins = np.arange(lo - 2.5, hi + 5, 5)  # one bar per multiple of 5, centred on it
        ps = results.policies
        for team, colour in ((0, "#4477aa"), (1, "#ee7733")):
            name = "+".join(sorted({ps[team], ps[team + 2]}))
            sel = scores[defending == team]
            ax.hist(sel, bins=bins, color=colour, alpha=0.75,
                    label=f"team{team} ({name}) defended: {len(sel):,} hands, mean {sel.mean() if len(sel) else 0:.0f}")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, fontsize=8, frameon=False)
    top = ax.get_ylim()[1]
    marks = [(5, "5"), (80, "80"), (160, "160 take over"), (240, "240"), (320, "320"), (400, "400")]
    for j, (x, label) in enumerate(marks):
        ax.axvline(x, color="#cc3311", lw=1, ls="--")
        # alternate heights so that neighbouring labels never overlap
        ax.text(x, top * (0.97 if j % 2 == 0 else 0.88), f" {label}", color="#cc3311", fontsize=8, va="top")
    ax.set_xlabel("defenders' final score (R7.3), bins of 5 points")
    ax.set_ylabel("hands")
    ax.set_title(f"{len(scores):,} hands, policies {','.join(results.policies)}, R7.4 thresholds marked")
    fig.tight_layout()
    try:
        with replacing(path) as tmp:
            fig.savefig(tmp, dpi=110, format=os.path.splitext(path)[1][1:].lower() or None)
    finally:
        plt.close(fig)


def _check_simulate(a: argparse.Namespace) -> None:
    """Every option, before the first hand: refuse what would fail or be ignored."""
    if a.matches is not None:
        for flag, given in (("--plot", a.plot), ("--records", a.records), ("--duplicate", a.duplicate)):
            if given:
                raise InvalidArgument(f"{flag} applies to hands, not to --matches")
    elif a.max_hands is not None:
        raise InvalidArgument("--max-hands applies to --matches, not to --hands")
    if a.address is not None and a.backend != "ray":
        raise InvalidArgument("--address is for --backend ray")
    outs = [(o, p) for o, p in (("--out", a.out), ("--plot", a.plot), ("--records", a.records)) if p is not None]
    for option, path in outs:
        _writable(option, path, [".npz"] if option == "--out" else None)
    real = {}
    for option, path in outs:
        key = os.path.realpath(path)
        if key in real:
            raise InvalidArgument(f"{real[key]} and {option} name the same file {path}")
        real[key] = option
    if a.plot is not None:
        plt = _need_matplotlib()
        ext = os.path.splitext(a.plot)[1].lower().lstrip(".")
        kinds = plt.figure().canvas.get_supported_filetypes()
        plt.close("all")
        if ext not in kinds:
            raise InvalidArgument(f"--plot {a.plot}: unknown image type {ext!r}: use one of {', '.join(sorted(kinds))}")


def _rescue(source, what: str, res=None) -> Optional[str]:
    """Saves results whose --out failed where they can go: the temporary folder. `source` is
    the results, or the stream of their arrays."""
    import tempfile

    fd, path = tempfile.mkstemp(prefix=f"tractor-{what}-", suffix=".npz")
    os.close(fd)
    try:
        if res is not None and source is not res:
            source.finish(res, path)
        else:
            source.to_npz(path)
        return path
    except Exception:
        try:
            os.unlink(path)
        except OSError:
            pass
        return None


_stop: Any = None  # the command's Ctrl-C handler (a tractor.sim.local._Interrupt), while it runs


def _hold() -> None:
    """The outputs are being written: from now on a Ctrl-C waits for them (each is written
    whole, under a temporary name renamed when done, and reported)."""
    if _stop is not None:
        _stop.hold()


def _exit_status(failed: List[str], interrupted: bool) -> int:
    """Reports the outputs that failed; 130 after Ctrl-C (during the run or held while the
    outputs were written), 1 if an output failed, else 0."""
    for f in failed:
        print(f"tractor: error: {f}", file=sys.stderr)
    if interrupted or (_stop is not None and _stop.hits):
        return 130
    return 1 if failed else 0


@contextmanager
def _failure_reported_here() -> Iterator[None]:
    """A failed run's RuntimeWarning (a Ray task, or a deal the engine failed) is left out:
    the CLI reports the failure itself."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="a Ray task failed", category=RuntimeWarning)
        warnings.filterwarnings("ignore", message=r"(hand|match) \d+ failed", category=RuntimeWarning)
        yield


def cmd_simulate(a: argparse.Namespace) -> int:
    from .sim import simulate

    _check_simulate(a)
    total = a.matches if a.matches is not None else a.hands
    start, count = _shard(a.shard, total) if total is not None and total >= 0 else (0, total)
    what = "matches" if a.matches is not None else "hands"
    bar = Progress(count, what, enabled=not a.quiet)
    kwargs = dict(
        policies=a.policy, seed=a.seed, threads=a.threads, profile=a.profile, start=start, progress=bar,
        chunk=a.chunk, backend=a.backend, address=a.address,
    )
    stream = None
    if a.matches is not None:
        with _failure_reported_here():
            res = simulate(matches=count, max_hands=a.max_hands, **kwargs)
    else:
        # Only the running summary is kept in memory, at any size; --out streams the arrays
        # to disk as the chunks finish. --plot (and --out with Ray) keeps them.
        keep = bool(a.plot) or (bool(a.out) and a.backend == "ray")
        if a.out and not keep:
            from .sim import NpzStream

            try:
                stream = NpzStream(a.out, a.duplicate)
            except OSError as e:
                raise InvalidArgument(f"--out {a.out}: cannot write beside it: {e}") from None
        try:
            with _failure_reported_here():
                res = simulate(hands=count, duplicate=a.duplicate, records=a.records, keep_arrays=keep, _sink=stream,
                               **kwargs)
        except BaseException:
            if stream is not None:
                stream.close()
            raise
    _hold()
    bar.close()
    if a.shard:
        res.run = (0, total)  # merge then knows the whole run, and finds missing shards
    if res.interrupted:
        finished = len(res) if res.__dict__.get("tally") is None else res.tally.hands
        print(f"interrupted: summarising the {finished:,} {what} that finished", file=sys.stderr)
    print(res)
    failed = []
    meta = getattr(res, "meta", {}) or {}
    if meta.get("stopped_by"):
        print(f"tractor: stopped early: {meta['stopped_by']}", file=sys.stderr)
    if meta.get("failure"):
        failed.append(f"--backend {a.backend}: {meta['failure']}")
    if a.records:
        if meta.get("records_error"):
            failed.append(f"--records: {meta['records_error']}")
        else:
            print(f"wrote {a.records} ({meta.get('records_written', 0):,} hands)")
        if meta.get("records_note"):
            print(f"note: {meta['records_note']}", file=sys.stderr)
    if a.out:
        try:
            if stream is not None:
                stream.finish(res)
            else:
                res.to_npz(a.out)
            print(f"wrote {a.out}")
        except Exception as e:  # never lose a finished run to a failing output step
            saved = _rescue(stream or res, what, res)
            failed.append(f"--out: {e}" + (f"; the results were saved to {saved} instead" if saved else ""))
        finally:
            if stream is not None:
                stream.close()
    if a.plot:
        try:
            plot_scores(res, a.plot)
            print(f"wrote {a.plot}")
        except Exception as e:
            failed.append(f"--plot: cannot draw {a.plot}: {type(e).__name__}: {e}")
    return _exit_status(failed, res.interrupted and not meta.get("failure"))


def _not_an_input(a: argparse.Namespace) -> None:
    """merge -o must not name one of its inputs: the output replaces its file."""
    out = os.path.realpath(a.output)
    for p in a.inputs:
        if os.path.realpath(p) == out or (os.path.exists(p) and os.path.exists(out) and os.path.samefile(p, out)):
            raise InvalidArgument(f"-o/--output {a.output}: it is one of the inputs ({p}); write the merge elsewhere")


def cmd_merge(a: argparse.Namespace) -> int:
    from .sim import load, merge

    if all(p.lower().endswith(".json") for p in a.inputs):
        from . import arena

        _writable("-o/--output", a.output, [".json"])
        _not_an_input(a)
        merged = arena.merge(*[arena.load(p) for p in a.inputs], partial=a.partial)
        _hold()
        print(merged)
        merged.to_json(a.output)
        print(f"wrote {a.output}")
        return _exit_status([], False)
    _writable("-o/--output", a.output, [".npz"])
    _not_an_input(a)
    res = merge([load(p) for p in a.inputs], partial=a.partial)
    _hold()
    print(res)
    try:
        res.to_npz(a.output)
    except Exception as e:
        saved = _rescue(res, "merged")
        print(f"tractor: error: -o/--output: {e}" + (f"; the results were saved to {saved} instead" if saved else ""),
              file=sys.stderr)
        return 1
    print(f"wrote {a.output}")
    return _exit_status([], False)


def cmd_arena(a: argparse.Namespace) -> int:
    from .arena import _suite, play

    for option, path, suffixes in (("--json", a.json, [".json"]), ("--parquet", a.parquet, [".parquet"]),
                                   ("--plot", a.plot, [".png", ".svg", ".pdf"])):
        if path is not None:
            _writable(option, path, suffixes)
    if a.plot:
        _need_matplotlib()
    suite = _suite(a.suite, "--suite")
    deals = suite.deals if a.deals is None else a.deals
    if deals < 1 or deals > suite.deals:
        raise InvalidArgument(f"--deals {deals}: the suite {suite.name} has 1..{suite.deals}")
    start, count = _shard(a.shard, deals)
    mstart, mcount = _shard(a.shard, a.matches) if a.matches else (0, 0)
    policies = [p for arg in a.policies for p in arg.split(";") if p.strip()]
    n = len(policies)
    bar = Progress(n * (n - 1) // 2 * (count + mcount), "deals", enabled=not a.quiet)
    res = play(policies, suite=a.suite, profile=a.profile, deals=count, start=start, matches=mcount,
               match_start=mstart, threads=a.threads, backend=a.backend, address=a.address, cost=not a.no_cost,
               bootstrap=a.bootstrap, progress=bar)
    _hold()
    bar.close()
    if a.shard:  # merge then knows the whole run, and finds missing shards
        res.run = {"deals": (0, deals), "matches": (0, a.matches)}
    if res.interrupted:
        print("interrupted: rating the pairings that finished", file=sys.stderr)
    print(res)
    failed = []
    for option, path, write in (("--json", a.json, res.to_json), ("--parquet", a.parquet, res.to_parquet),
                                ("--plot", a.plot, res.plot)):
        if path:
            try:
                write(path)
                print(f"wrote {path}")
            except Exception as e:  # the table is printed: report the file that failed
                failed.append(f"{option}: {type(e).__name__}: {e}")
    return _exit_status(failed, res.interrupted)


def cmd_demo(a: argparse.Namespace) -> int:
    from .cards import format
    from .game import Game
    from .playthrough import playthrough
    from .rules import Context

    ctx = Context(level=10, trump="h")
    hand = "As Qs Js 9s 9s 5s 3s 4h 7c"
    lead = "4s 4s 5s 5s"
    print(f"{ctx}; follower holds {hand}; lead {lead}")
    print("  ladder demands:", ctx.follow_requirement(hand, lead))
    print("  legal follows:", ctx.count_legal_follows(hand, lead))
    print("  a random one:", format(ctx.random_follow(hand, lead, seed=1)))
    print("  As Qs Js 3s ->", ctx.follow_error(hand, lead, "As Qs Js 3s"))
    g = Game(seed=a.seed)
    g.play_random(a.seed)
    print(playthrough(g).splitlines()[-1])
    return 0


def cmd_view(a: argparse.Namespace) -> int:
    from .view import load, write_html

    out = a.output
    if out is None:
        base = os.path.splitext(os.path.basename(a.file))[0]
        out = f"{base}.html" if a.hand is None else f"{base}-hand{a.hand}.html"
    _writable("-o/--output", out, [".html", ".htm"])
    try:
        game, decisions, title = load(a.file, a.hand)
    except OSError as e:
        raise InvalidArgument(f"{a.file}: {e.strerror or e}") from None
    _hold()
    try:
        write_html(out, game, seat=a.seat, title=title, decisions=decisions)
    except OSError as e:
        raise InvalidArgument(f"-o/--output {out}: cannot write it: {e.strerror or e}") from None
    print(f"wrote {out} ({len(game.tricks)} tricks; open it in a browser, no network needed)")
    return 0


def cmd_play(a: argparse.Namespace) -> int:
    import threading
    import webbrowser

    from .view.server import SaveFailed, Table, serve

    if a.resume is not None and not os.path.isfile(a.resume):
        raise InvalidArgument(f"--resume {a.resume}: no such file")
    save = a.save if a.save else None
    table = Table(seat=a.seat, opponents=a.opponents, profile=a.profile, seed=a.seed, save_dir=save, resume=a.resume)
    try:
        server = serve(table, a.port, verbose=a.verbose)
    except OSError as e:
        table.stop()
        raise InvalidArgument(f"--port {a.port}: cannot listen on 127.0.0.1: {e.strerror or e}") from None
    url = f"http://127.0.0.1:{server.server_port}/"
    print(f"tractor table: {url} (seat {table.seat} against {', '.join(table.names)}); Ctrl-C stops it", flush=True)
    worker = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    worker.start()
    if not a.no_browser:
        try:
            webbrowser.open(url)
        except Exception:  # no browser here: the address is printed
            pass
    stop = _stop
    try:
        while worker.is_alive() and not (stop is not None and stop.requested):
            worker.join(0.2)
    except KeyboardInterrupt:  # without the CLI's handler (another thread, no signals)
        pass
    _hold()
    server.shutdown()
    server.server_close()
    table.stop()
    try:
        with table.lock:
            where = table.save()
    except SaveFailed as e:  # the folder went away meanwhile: say so, and where the last save is
        print(f"tractor table: stopped; the match could not be saved: {e} (the last save of it is as it was)", file=sys.stderr, flush=True)
        return 1
    print("tractor table: stopped" + (f"; the match is saved in {where} (--resume it)" if where else ""), flush=True)
    return 0


def run() -> None:
    """The ``tractor`` command (console script and ``python -m tractor.cli``): :func:`main`,
    then exit with its status. A Ctrl-C after the command is over, to the process's end,
    changes nothing."""
    sys.exit(main(_program=True))


def cmd_train(a: argparse.Namespace) -> int:
    """``tractor train``: rounds of self-play and SGD (tractor.train); the curve as JSON beside
    the networks."""
    from . import train as T

    try:
        margins = [float(x) for x in a.margins.split(",") if x.strip()]
    except ValueError:
        raise InvalidArgument(f"--margins: comma-separated numbers, got {a.margins!r}") from None
    if a.worlds < 0:
        raise InvalidArgument(f"--worlds: at least 0, got {a.worlds}")
    try:
        a.h1, a.h2 = (int(x) for x in a.hidden.split(","))
    except ValueError:
        raise InvalidArgument(f"--hidden: two widths, as 128,32, got {a.hidden!r}") from None
    for name in ("rounds", "hands", "window", "epochs", "rollouts", "h1", "h2"):
        if getattr(a, name) < 1:
            raise InvalidArgument(f"--{name}: at least 1, got {getattr(a, name)}")
    for flag, name in (("--behaviour", a.behaviour), ("--rollout", a.rollout), ("--teacher", a.teacher)):
        if name:
            _policy(name, flag)  # named here, not as seats[0]; the recipe keeps the name as given
    behaviour = a.behaviour or a.base
    sp = T.SelfPlay(seats=[behaviour] * 4, base=a.base, rollout=a.rollout or behaviour, label_rate=a.label_rate, per_decision=a.per_decision,
                    rollouts=a.rollouts, profile=a.profile, worlds=a.worlds, obs_version=a.obs_version,
                    levels=a.levels, teacher=a.teacher, value_visited=a.value_visited, play_features=a.play_features,
                    solve=a.solve)
    cfg = T.TrainConfig(out=a.out, seed=a.seed, rounds=a.rounds, hands_per_round=a.hands, window=a.window, epochs=a.epochs, h1=a.h1,
                        h2=a.h2, eval_deals=a.eval_deals, opponent=a.opponent, threads=a.threads,
                        time_limit_s=60 * a.time_limit, margins=margins or [0.0], phases=a.phases, selfplay=sp,
                        init=a.init, lr=a.lr, imitate=a.imitate, imitate_temperature=a.imitate_temperature,
                        imitate_visits=a.imitate_visits)
    say = (lambda m: None) if a.quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    out = T.train(cfg, progress=say)
    best = max((r for c in out["curve"] for r in c["rated"]), key=lambda r: r.get("levels_per_deal", float("-inf")), default=None)
    if best is not None and "levels_per_deal" in best:
        print(f"best: {best['path']} {best['levels_per_deal']:+.3f} [{best['lo']:+.3f}, {best['hi']:+.3f}] "
              f"levels per deal against {a.opponent} ({best['deals']} duplicate deals of seed {cfg.eval_seed:#x})")
    print(f"curve: {os.path.join(a.out, 'curve.json')}")
    return 0


def main(argv: Optional[List[str]] = None, _program: bool = False) -> int:
    """Runs one command (``argv``: its arguments, default ``sys.argv[1:]``); returns the exit
    status. Ctrl-C acts as the documentation of the CLI says while it runs; then Python's
    handler is back."""
    p = argparse.ArgumentParser(prog="tractor", description="Guigang Tractor rule engine")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("simulate", help="simulate many hands (or matches) and summarise")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--hands", type=int, default=10_000)
    g.add_argument("--matches", type=int, default=None)
    s.add_argument("--policy", default="greedy,random,greedy,random", help=f"four policies, one per seat (comma-separated): {', '.join(_core.POLICIES)}")
    s.add_argument("--threads", type=int, default=None, help="worker threads (default: all cores)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--profile", default="guigang", choices=list(PROFILES))
    s.add_argument("--shard", default=None, help="i/n: run only the i-th of n equal index ranges")
    s.add_argument("--duplicate", action="store_true", help="play every deal twice, seats rotated")
    s.add_argument("--max-hands", type=int, default=None, help="cap per match (with --matches; default 1000)")
    s.add_argument("--records", default=None, help="stream compact hand records to this file")
    s.add_argument("--out", default=None, help="save per-hand arrays (.npz)")
    s.add_argument("--plot", default=None, help="histogram of the defenders' scores (.png)")
    s.add_argument("--chunk", type=int, default=None,
                   help="hands per chunk (progress, Ctrl-C granularity; default 20000; with Ray, per task)")
    s.add_argument("--backend", default="local", choices=["local", "ray"])
    s.add_argument("--address", default=None, help="Ray cluster address (with --backend ray)")
    s.add_argument("--quiet", action="store_true", help="no progress output")
    s.set_defaults(fn=cmd_simulate)
    r = sub.add_parser("arena", help="rate policies against each other in duplicate on a frozen deal suite")
    r.add_argument("policies", nargs="+",
                   help=f"two or more policies ({', '.join(_core.POLICIES)}); a policy with commas in its "
                        "parameters is one argument, quoted")
    r.add_argument("--suite", default="eval-v1", help="the deal suite (default eval-v1; seed-SEED: an ad-hoc suite)")
    r.add_argument("--profile", default="guigang", choices=list(PROFILES))
    r.add_argument("--deals", type=int, default=None, help="the suite's first N deals (default: all)")
    r.add_argument("--matches", type=int, default=0, help="also play the suite's first N whole matches per pairing")
    r.add_argument("--shard", default=None, help="i/n: play only the i-th of n equal parts of the deals (and matches)")
    r.add_argument("--threads", type=int, default=None, help="worker threads (default: all cores)")
    r.add_argument("--backend", default="local", choices=["local", "ray"])
    r.add_argument("--address", default=None, help="Ray cluster address (with --backend ray)")
    r.add_argument("--bootstrap", type=int, default=200, help="resamples for the ratings' intervals (0: none)")
    r.add_argument("--no-cost", action="store_true", help="do not time each policy's cost per decision")
    r.add_argument("--json", default=None, help="write the results (every deal) as JSON; `tractor merge` joins shards")
    r.add_argument("--parquet", default=None, help="write one row per pairing and deal (.parquet)")
    r.add_argument("--plot", default=None, help="the ratings with their intervals (.png)")
    r.add_argument("--quiet", action="store_true", help="no progress output")
    r.set_defaults(fn=cmd_arena)
    m = sub.add_parser("merge", help="merge shard outputs of one run (.npz of simulate, .json of arena)")
    m.add_argument("inputs", nargs="+")
    m.add_argument("-o", "--output", required=True)
    m.add_argument("--partial", action="store_true", help="merge even if shards are missing (marked interrupted)")
    m.set_defaults(fn=cmd_merge)
    v = sub.add_parser("view", help="one hand as a self-contained HTML replay (no network)")
    v.add_argument("file", help="a JSON hand record, a saved match of `tractor play`, or a records file")
    v.add_argument("--hand", type=int, default=None, help="which hand (records file, saved match; from 0)")
    v.add_argument("--seat", type=int, default=None, choices=range(4), help="open in this seat's view")
    v.add_argument("-o", "--output", default=None, help="the page (default: FILE's name with .html)")
    v.set_defaults(fn=cmd_view)
    t = sub.add_parser("play", help="play a seat against the bots at a table in your browser (127.0.0.1 only)")
    t.add_argument("--seat", type=int, default=0, choices=range(4), help="your seat (default 0)")
    t.add_argument("--opponents", default="greedy,greedy,greedy",
                   help="three policies for the seats after yours, in play order (default greedy,greedy,greedy)")
    t.add_argument("--profile", default="guigang", choices=list(PROFILES))
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--port", type=int, default=0, help="the port (default: a free one, printed)")
    t.add_argument("--save", default="tractor-table", help="folder for the finished hands and the match (default tractor-table)")
    t.add_argument("--resume", default=None, help="continue a saved match (its match.json; the hand files beside it)")
    t.add_argument("--no-browser", action="store_true", help="print the address, do not open a browser")
    t.add_argument("--verbose", action="store_true", help="log every request")
    t.set_defaults(fn=cmd_play)
    tr = sub.add_parser("train", help="train a network that scores whole plays by self-play (needs the [train] extra)")
    tr.add_argument("--out", required=True, help="folder for the checkpoints, networks and curve (resumed when it holds state.pt)")
    tr.add_argument("--seed", type=int, default=1)
    tr.add_argument("--rounds", type=int, default=24)
    tr.add_argument("--hands", type=int, default=5_000, help="self-play hands per round")
    tr.add_argument("--window", type=int, default=4, help="rounds whose samples each round trains on")
    tr.add_argument("--epochs", type=int, default=1, help="passes over the window's samples each round")
    tr.add_argument("--rollouts", type=int, default=1, help="rollouts per valued candidate")
    tr.add_argument("--per-decision", type=int, default=8, help="candidates valued per labelled decision")
    tr.add_argument("--label-rate", type=float, default=0.1, help="share of the learner's decisions labelled")
    tr.add_argument("--worlds", type=int, default=16, help="value play decisions in W worlds of the seat's information set (0: the true state)")
    tr.add_argument("--obs-version", type=int, default=2, help="the observation the network reads (default 2)")
    tr.add_argument("--play-features", type=int, default=1, help="the candidates' features the network reads (default 1; "
                    "2 adds beaters, ruffers, whose the trick is and its points: docs/training.md)")
    tr.add_argument("--phases", default="play", choices=["both", "play", "declare"], help="where the network decides (default play: the base declares)")
    tr.add_argument("--base", default="tuned-greedy-v1", help="the candidates' base weights (greedy weights; the advantages' baseline)")
    tr.add_argument("--behaviour", default=None, help="the policy on all four seats while self-playing (default: --base); "
                    "a network here, with --rollout, makes the targets its own values (policy iteration)")
    tr.add_argument("--rollout", default=None, help="the policy that plays valued candidates out (default: --behaviour)")
    tr.add_argument("--levels", default="fresh", choices=["fresh", "drawn"],
                    help="self-play hands: a fresh match's first (default; both teams at 3) or dealt at drawn levels and banker")
    tr.add_argument("--teacher", default=None, help="a policy (a search, say) whose action at each labelled decision is "
                    "recorded and valued with the others; with --imitate, the network learns to rank it first")
    tr.add_argument("--imitate", type=float, default=0.0, help="weight of the imitation term: the teacher's candidate "
                    "scored above each other valued one (logistic loss; 0: none; needs --teacher)")
    tr.add_argument("--imitate-temperature", type=float, default=0.05, help="the imitation loss's scale in levels (default 0.05)")
    tr.add_argument("--imitate-visits", action="store_true", help="with a search as --teacher: each other candidate's "
                    "imitation target is its share of the pair's root visits, not 0 (the search's doubt kept)")
    tr.add_argument("--value-visited", type=float, default=0.0, help="with a search as --teacher: also value every play "
                    "its root visited at least this share of the time (0..1; default 0: its action only)")
    tr.add_argument("--solve", type=int, default=0, help="value play decisions where the seat holds at most N cards by "
                    "the open-card solver (exact, in each world or in the true state) instead of rollouts (default 0: none)")
    tr.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate (default 0.001; smaller for a warm start)")
    tr.add_argument("--init", default=None, help="start from this play network (a path or a shipped name, "
                    "its observation version and --hidden widths) instead of random weights")
    tr.add_argument("--hidden", default="128,32", help="the two hidden layers' widths (default 128,32)")
    tr.add_argument("--margins", default="0,0.03", help="margins (levels) rated after each round (comma-separated)")
    tr.add_argument("--eval-deals", type=int, default=1000, help="duplicate deals against --opponent after each round (0: none)")
    tr.add_argument("--opponent", default="tuned-greedy-v1")
    tr.add_argument("--profile", default="guigang", choices=list(PROFILES))
    tr.add_argument("--threads", type=int, default=0, help="worker threads (default: all cores)")
    tr.add_argument("--time-limit", type=float, default=0.0, help="stop after the round that passes this many minutes")
    tr.add_argument("--quiet", action="store_true", help="no progress output")
    tr.set_defaults(fn=cmd_train)
    d = sub.add_parser("demo", help="a short tour of the rules API")
    d.add_argument("--seed", type=int, default=7)
    d.set_defaults(fn=cmd_demo)
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 is printed escaped
        try:
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            pass
    a = p.parse_args(argv)
    global _stop
    from .sim.local import _Interrupt

    # One Ctrl-C handler for the whole command: a run's first Ctrl-C stops it after the chunk
    # under way, and once the outputs are being written (_hold) every Ctrl-C waits for them.
    # As a program (run()) it stays to the end, so that a late Ctrl-C changes nothing.
    stop = _Interrupt()
    stop.__enter__()
    _stop = stop
    try:
        return a.fn(a)
    except TractorError as e:
        print(f"tractor: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tractor: interrupted", file=sys.stderr)
        return 130
    finally:
        _stop = None
        if _program:  # the command is over: a Ctrl-C from now on, to the process's end, changes nothing
            stop.hold(quiet=True)
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
            except (ValueError, OSError):
                pass
        else:
            stop.__exit__(None, None, None)


if __name__ == "__main__":
    run()
