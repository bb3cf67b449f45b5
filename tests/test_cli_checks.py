"""The ``tractor`` CLI checks every option before the first hand and never loses a finished run
to a failing output step; progress is a plain periodic line when stderr is not a terminal."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time

import pytest

import tractor
from tractor import cli as tcli
from tractor.cli import Progress, main


def run_cli(*args, cwd, timeout=120, pre=""):
    code = f"{pre}\nimport sys\nfrom tractor.cli import main\nsys.exit(main({list(args)!r}))"
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=timeout)


HUGE = "100000000000"  # a run that would never finish: a refusal must come before any work


@pytest.mark.parametrize("args,words", [
    (["--out", "missing/x.npz"], "--out missing/x.npz: the folder"),
    (["--out", "x.txt"], "must end in .npz"),
    (["--out", "."], "is a folder"),
    (["--records", "missing/r.rec"], "--records missing/r.rec: the folder"),
    (["--plot", "missing/p.png"], "--plot missing/p.png: the folder"),
    (["--plot", "p.notanimage"], "unknown image type"),
    (["--out", "a.npz", "--records", "a.npz"], "name the same file"),
    (["--max-hands", "5"], "--max-hands applies to --matches"),
    (["--address", "auto"], "--address is for --backend ray"),
    (["--threads", "0"], "threads"),
    (["--chunk", "0"], "chunk"),
    (["--seed", "-1"], "seed"),
    (["--shard", "3/2"], "--shard"),
    (["--policy", "greedy"], "four policies"),
])
def test_bad_options_are_refused_before_the_first_hand(args, words, tmp_path):
    t0 = time.monotonic()
    p = run_cli("simulate", "--hands", HUGE, "--quiet", *args, cwd=tmp_path)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert words in p.stderr and p.stderr.startswith("tractor: error:"), p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    assert time.monotonic() - t0 < 60
    assert sorted(x.name for x in tmp_path.iterdir()) == [], "a refused run writes no file"


@pytest.mark.parametrize("flag", [["--plot", "p.png"], ["--records", "r.rec"], ["--duplicate"]])
def test_hand_options_are_refused_with_matches(flag, tmp_path):
    p = run_cli("simulate", "--matches", HUGE, "--quiet", *flag, cwd=tmp_path)
    assert p.returncode == 2 and f"{flag[0]} applies to hands, not to --matches" in p.stderr, p.stderr


def test_plot_without_matplotlib_is_refused_first(tmp_path):
    p = run_cli("simulate", "--hands", HUGE, "--quiet", "--plot", "p.png", cwd=tmp_path,
                pre="import sys; sys.modules['matplotlib'] = None")
    assert p.returncode == 2 and "--plot needs matplotlib" in p.stderr, p.stderr


def test_a_failing_output_loses_nothing(tmp_path, monkeypatch, capsys):
    """--out fails after the run (the disk filled up, say): the summary is printed, the other
    outputs are written, the results are saved elsewhere, and the exit status says so."""
    pytest.importorskip("matplotlib")
    real = tractor.SimResults.to_npz

    def failing(self, path):
        if os.path.basename(str(path)) == "x.npz":  # not the rescue's random name (it may end in x)
            raise OSError(28, "No space left on device")
        return real(self, path)

    monkeypatch.setattr(tractor.SimResults, "to_npz", failing)
    monkeypatch.chdir(tmp_path)
    rc = main(["simulate", "--hands", "60", "--threads", "1", "--quiet", "--out", "x.npz", "--plot", "p.png",
               "--records", "r.rec"])
    out, err = capsys.readouterr()
    assert rc == 1
    assert re.search(r"^hands\s+60$", out, re.M) and "wrote p.png" in out and "wrote r.rec (60 hands)" in out
    m = re.search(r"tractor: error: --out: .*No space left on device; the results were saved to (\S+) instead", err)
    assert m, err
    saved = tractor.load(m.group(1))
    assert len(saved) == 60
    assert len(list(tractor.read_records("r.rec", replay=False))) == 60


def test_progress_is_a_periodic_line_when_not_a_terminal():
    s = io.StringIO()
    p = Progress(100, stream=s, interval=3600)
    for done in range(10, 101, 10):
        p(done, 100)
    p.close()
    lines = s.getvalue().splitlines()
    assert "\r" not in s.getvalue()
    assert len(lines) == 2, lines  # the first call, then the end (the interval never passed)
    assert lines[0].startswith("progress: 10/100 hands (10.0%)") and "hands/s" in lines[0]
    assert lines[1].startswith("progress: 100/100 hands (100.0%)")

    class Tty(io.StringIO):
        def isatty(self):
            return True

    t = Tty()
    p = Progress(100, stream=t)
    p(50, 100)
    p.close()
    assert t.getvalue().startswith("\r[") and t.getvalue().endswith("\n")


def test_cli_progress_in_a_log(tmp_path):
    p = run_cli("simulate", "--hands", "300", "--chunk", "100", "--threads", "1", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "\r" not in p.stderr and p.stderr.startswith("progress: 100/300 hands")
    assert "progress: 300/300 hands (100.0%)" in p.stderr


def test_merge_cli_refuses_missing_shards(tmp_path):
    for i in (0, 2):
        p = run_cli("simulate", "--hands", "90", "--shard", f"{i}/3", "--threads", "1", "--out", f"s{i}.npz",
                    "--quiet", cwd=tmp_path)
        assert p.returncode == 0, p.stderr
    p = run_cli("merge", "s0.npz", "s2.npz", "-o", "m.npz", cwd=tmp_path)
    assert p.returncode == 2 and "hands 30..59 (30 in all) are missing" in p.stderr, p.stderr
    assert not (tmp_path / "m.npz").exists()
    p = run_cli("merge", "s0.npz", "s2.npz", "-o", "m.npz", "--partial", cwd=tmp_path)
    assert p.returncode == 0 and re.search(r"^hands\s+60$", p.stdout, re.M), p.stderr
    # the last shard missing is found too: the shards know the whole run
    p = run_cli("merge", "s0.npz", "-o", "m.npz", cwd=tmp_path)
    assert p.returncode == 2 and "hands 30..89 (60 in all) are missing" in p.stderr, p.stderr
    p = run_cli("merge", "s0.npz", "nothere.npz", "-o", "m.npz", cwd=tmp_path)
    assert p.returncode == 2 and "no such file" in p.stderr
    p = run_cli("merge", "s0.npz", "-o", "missing/m.npz", cwd=tmp_path)
    assert p.returncode == 2 and "the folder" in p.stderr


def test_histogram_bins_are_the_multiples_of_5(monkeypatch, tmp_path):
    plt = pytest.importorskip("matplotlib.pyplot")
    r = tractor.simulate(hands=200, seed=3, threads=1)
    seen = {}
    real = plt.Axes.hist

    def spy(self, x, bins=None, **kw):
        seen.setdefault("bins", []).append(bins)
        return real(self, x, bins=bins, **kw)

    monkeypatch.setattr(plt.Axes, "hist", spy)
    monkeypatch.setattr(plt.Figure, "savefig", lambda self, fname, **k: open(fname, "wb").close())
    tcli.plot_scores(r, str(tmp_path / "unused.png"))
    assert len(seen["bins"]) == 2  # one histogram per defending team
    for bins in seen["bins"]:
        centres = (bins[:-1] + bins[1:]) / 2
        assert (centres % 5 == 0).all() and ((bins[1:] - bins[:-1]) == 5).all()


def test_out_streams_the_arrays_to_disk(tmp_path, monkeypatch, capsys):
    """--out writes each chunk's columns as it finishes: the run's arrays never sit in memory,
    and the file is the one to_npz would write."""
    import tracemalloc

    monkeypatch.chdir(tmp_path)

    def run(n):
        args = ["simulate", "--hands", str(n), "--chunk", "500", "--threads", "2", "--seed", "5", "--quiet",
                "--policy", "random,random,random,random", "--duplicate", "--out", "s.npz"]
        tracemalloc.start()
        rc = main(args)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert rc == 0 and "wrote s.npz" in capsys.readouterr().out
        return peak

    run(500)  # imports and first-use allocations
    small, big = run(8500), run(17000)  # both past two batches of the tally (4,096 hands)
    back = tractor.load("s.npz")
    want = tractor.simulate(hands=17000, seed=5, threads=2, policies="random,random,random,random", duplicate=True)
    for k in want.arrays:
        assert (back[k] == want[k]).all() and back[k].dtype == want[k].dtype, k
        assert (back.duplicate[k] == want.duplicate[k]).all(), k
    full = sum(v.nbytes for v in want.arrays.values()) * 2
    # flat: twice the hands, the same peak (one chunk, one tally batch, the zip's buffers)
    assert big < small + (128 << 10), f"peak {small:,} bytes for 8,500 hands, {big:,} for 17,000 ({full:,} of arrays)"
    assert [p.name for p in tmp_path.iterdir()] == ["s.npz"], "no temporary file is left"


def test_a_failing_streamed_out_is_rescued(tmp_path, monkeypatch, capsys):
    from tractor.sim import NpzStream

    real = NpzStream.finish

    def failing(self, res, path=None):
        if path is None:
            raise tractor.errors.OutputError("cannot write 'x.npz': Disk quota exceeded")
        return real(self, res, path)

    monkeypatch.setattr(NpzStream, "finish", failing)
    monkeypatch.chdir(tmp_path)
    rc = main(["simulate", "--hands", "50", "--threads", "1", "--quiet", "--out", "x.npz"])
    out, err = capsys.readouterr()
    assert rc == 1 and re.search(r"^hands\s+50$", out, re.M)
    m = re.search(r"Disk quota exceeded; the results were saved to (\S+) instead", err)
    assert m, err
    assert len(tractor.load(m.group(1))) == 50
    assert [p.name for p in tmp_path.iterdir()] == []


def test_a_file_name_that_is_not_utf8_is_written_and_printed_escaped(tmp_path):
    p = run_cli("simulate", "--hands", "3", "--threads", "1", "--quiet", "--out", "\udcff.npz", cwd=tmp_path)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert "wrote \\udcff.npz" in p.stdout
    assert [os.fsencode(x.name) for x in tmp_path.iterdir()] == [b"\xff.npz"]
