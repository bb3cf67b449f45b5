"""`tractor view`'s inputs and output (issue 41 item 6): a deeply nested hand or decisions file,
a FIFO, an output in a folder that is not there (as the system reads the path) are each a named
error and exit status 2, never a traceback or a hang."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import tractor
from tractor import cli, view
from tractor.errors import InvalidArgument, InvalidRecord

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def hand(tmp_path):
    g = tractor.Game(seed=1)
    g.play_random(1)
    path = tmp_path / "h.json"
    path.write_text(g.to_json())
    return path


def _view(capsys, *args):
    rc = cli.main(["view", *map(str, args)])
    return rc, capsys.readouterr().err


def test_deep_decisions_beside_a_hand(hand, capsys):
    (hand.parent / "h.decisions.json").write_text(DEEP)
    with pytest.raises(InvalidRecord, match="h.decisions.json: not the decisions of a hand: .*nested too deeply"):
        view.load(hand)
    rc, err = _view(capsys, hand, "-o", hand.parent / "x.html")
    assert rc == 2 and "tractor: error:" in err and "nested too deeply" in err


def test_a_deep_hand_file(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text('{"a": ' + DEEP + "}")
    with pytest.raises(InvalidRecord, match="nested too deeply"):
        view.load(path)
    rc, err = _view(capsys, path, "-o", tmp_path / "x.html")
    assert rc == 2 and "not a hand record" in err


def _load_elsewhere(path):
    """view.load(path) in a process of its own (a reader stuck on a FIFO, the GIL held, is a
    timeout there): the error it raises, as 'Class: message'."""
    code = ("import sys; from tractor import view\ntry:\n    view.load(sys.argv[1])\n"
            "except Exception as e:\n    print(f'{type(e).__name__}: {e}')")
    try:
        return subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                              timeout=30).stdout
    except subprocess.TimeoutExpired:
        return "hung"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifos_are_refused_not_waited_on(hand, tmp_path):
    fifo = tmp_path / "f.json"
    os.mkfifo(fifo)
    assert _load_elsewhere(fifo) == f"InvalidArgument: {fifo}: not a regular file\n"
    side = hand.parent / "h.decisions.json"
    os.mkfifo(side)
    assert _load_elsewhere(hand) == f"InvalidRecord: {side}: not a regular file\n"
    # the command, in a process of its own: a hang would be a timeout here
    p = subprocess.run([sys.executable, "-m", "tractor.cli", "view", str(fifo), "-o", str(tmp_path / "x.html")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "tractor: error:" in p.stderr and "not a regular file" in p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("out", ["nodir/../x.html", "h.json/../x.html"])
def test_an_output_whose_folder_is_not_there(hand, capsys, monkeypatch, out):
    monkeypatch.chdir(hand.parent)
    rc, err = _view(capsys, "h.json", "-o", out)
    assert rc == 2 and f"tractor: error: -o/--output {out}: the folder" in err
    assert not (hand.parent / "x.html").exists()


def test_an_output_that_cannot_be_written_after_all(hand, capsys, monkeypatch, tmp_path):
    out = tmp_path / "gone" / "x.html"
    out.parent.mkdir()
    real = view.load

    def load_and_remove_the_folder(*a):  # the folder goes away while the hand is read
        res = real(*a)
        out.parent.rmdir()
        return res

    monkeypatch.setattr(view, "load", load_and_remove_the_folder)
    rc, err = _view(capsys, hand, "-o", out)
    assert rc == 2 and f"tractor: error: -o/--output {out}: cannot write it" in err
