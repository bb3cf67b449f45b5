"""Two Ctrl-Cs at random moments of a CLI run: every output is whole and what was printed
about it, or absent with the reason printed; no temporary file is left behind.

Each trial starts ``tractor simulate`` with records, ``--out`` and small chunks, waits for its
first progress line, then sends SIGINT at a random moment and a second one soon after (during
the run, its winding down, the summary or the writing of the outputs). Then it checks the
folder against what the command printed. 6 trials (40 with ``TRACTOR_SCALE=1``), the moments
drawn from a fixed seed so that a failure can be replayed.
"""

from __future__ import annotations

import os
import random
import signal
import time

import numpy as np
import pytest

import tractor
from tractor.errors import InvalidArgument

from _cli_util import StderrWatch, hands_summarised, start_cli

TRIALS = 40 if os.environ.get("TRACTOR_SCALE") else 6


def run_trial(folder, rng: random.Random, plot: bool):
    """One run (with --plot: the arrays kept in memory and a slow output; without: --out
    streamed to disk), two SIGINTs: (exit code, stdout, stderr, the moments)."""
    args = ["simulate", "--hands", "400000", "--chunk", "20", "--threads", "1", "--seed", str(rng.randrange(1000)),
            "--records", "r.bin", "--out", "r.npz"] + (["--plot", "p.png"] if plot else [])
    proc = start_cli(args, folder)
    watch = StderrWatch(proc, b"hands/s", b"summarising")
    started, summarising = watch.seen[b"hands/s"], watch.seen[b"summarising"]
    # the second Ctrl-C: soon after the first (the run winding down), or just after the run
    # said it is summarising (the summary and the outputs being written)
    after_summary = rng.random() < 0.5
    moments = (rng.uniform(0, 0.8), rng.uniform(0, 0.03) if after_summary else rng.uniform(0, 0.4), after_summary)
    try:
        assert started.wait(60), bytes(watch.err)[-2000:]
        time.sleep(moments[0])
        proc.send_signal(signal.SIGINT)
        if after_summary:
            summarising.wait(30)
        time.sleep(moments[1])
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        out = proc.stdout.read().decode()  # to the end: the child has exited
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out, watch.join().decode(errors="replace"), moments


@pytest.mark.parametrize("trial", range(TRIALS))
def test_two_ctrl_c_leave_every_output_whole_or_absent(tmp_path, trial):
    rng = random.Random(20261202 + trial)
    plot = trial % 2 == 1
    rc, out, err, moments = run_trial(tmp_path, rng, plot)
    what = f"trial {trial}, SIGINTs after {moments}: rc {rc}\nstdout:\n{out}\nstderr:\n{err[-3000:]}"
    assert rc == 130, what
    assert "Traceback" not in err, what
    left = sorted(os.listdir(tmp_path))
    assert set(left) <= {"r.bin", "r.npz", "p.png"}, what  # no .tractor-partial, no .tractor-out-* folder
    hands = hands_summarised(out)
    if "wrote r.bin" in out:
        n = int(out.split("wrote r.bin (")[1].split(" hands)")[0].replace(",", ""))
        r = tractor.read_records(tmp_path / "r.bin", replay=False)
        recs = list(r)
        assert (len(recs), r.complete, r.stopped) == (n, True, True), what
        assert n == hands, what
    else:
        assert not (tmp_path / "r.bin").exists() and "--records" in err, what
    if "wrote r.npz" in out:
        res = tractor.load(tmp_path / "r.npz")
        assert len(res) == hands and res.interrupted, what
        if (tmp_path / "r.bin").exists():
            seeds = [x.hand_seed for x in tractor.read_records(tmp_path / "r.bin", replay=False)]
            assert np.array_equal(res["seed"], np.array(seeds, dtype=np.uint64)), what
    else:
        assert not (tmp_path / "r.npz").exists() and "--out" in err, what
    if plot:
        if "wrote p.png" in out:
            assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", what
        else:
            assert not (tmp_path / "p.png").exists() and "--plot" in err, what


def test_merge_refuses_an_output_that_is_one_of_its_inputs(tmp_path):
    from tractor.cli import main

    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    tractor.simulate(hands=10, seed=1, threads=1).to_npz(str(a))
    tractor.simulate(hands=10, seed=1, start=10, threads=1).to_npz(str(b))
    before = a.read_bytes()
    link = tmp_path / "link.npz"
    os.symlink(a, link)
    for target in (a, link, tmp_path / "." / "a.npz"):
        assert main(["merge", str(a), str(b), "-o", str(target)]) == 2
        assert a.read_bytes() == before
    arena_json = tmp_path / "x.json"
    arena_json.write_text("{}")
    assert main(["merge", str(arena_json), "-o", str(arena_json)]) == 2
    assert arena_json.read_text() == "{}"
    assert main(["merge", str(a), str(b), "-o", str(tmp_path / "ab.npz")]) == 0
    assert len(tractor.load(tmp_path / "ab.npz")) == 20
    with pytest.raises(InvalidArgument):
        from tractor.cli import _not_an_input
        import argparse

        _not_an_input(argparse.Namespace(inputs=[str(b)], output=str(b)))
