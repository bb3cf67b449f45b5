"""benches/thread_curve.py, the thread curve a lent many-core machine runs once: a small run
of every workload at 1 and 2 threads writes its table, and a result that depends on the thread
count stops the run (the check the curve relies on)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benches" / "thread_curve.py"


def test_a_small_curve_of_every_workload(tmp_path):
    out = tmp_path / "curve.json"
    r = subprocess.run([sys.executable, str(SCRIPT), "--threads", "1", "2", "--repeats", "1", "--scale", "0.02",
                        "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    d = json.loads(out.read_text())
    assert d["threads"] == [1, 2]
    assert sorted(d["workloads"]) == ["ismcts", "pimc", "selfplay", "simulate", "solve"]
    for w in d["workloads"].values():
        assert [row["threads"] for row in w["rows"]] == [1, 2]
        assert w["rows"][0]["speedup"] == 1.0
        assert all(row["median_s"] > 0 and len(row["times_s"]) == 1 for row in w["rows"])


def test_the_thread_counts_must_include_one():
    r = subprocess.run([sys.executable, str(SCRIPT), "--threads", "2", "4"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--threads must include 1" in r.stderr


def test_a_result_that_depends_on_the_threads_stops_the_run(monkeypatch):
    spec = importlib.util.spec_from_file_location("thread_curve", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "workloads", lambda scale: [("ismcts", "a result that counts threads", lambda t: t)])
    monkeypatch.setattr(sys, "argv", ["thread_curve.py", "--threads", "1", "2", "--repeats", "1"])
    with pytest.raises(SystemExit, match="at 2 threads differs"):
        mod.main()
