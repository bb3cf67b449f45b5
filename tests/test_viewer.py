"""The replay page without a browser: self-contained, its frames agree with the engine's hand,
every source opens (a JSON record, a records file's hand K, a saved match), bad input is
refused clearly. tests/test_browser.py checks what a real browser shows."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

import tractor
from tractor.errors import InvalidArgument, InvalidRecord, RecordsError
from tractor.view import load, to_html, write_html
from tractor.view import model


def _data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, flags=re.S)
    assert m is not None
    return json.loads(m.group(1))


def _hand(seed=7, profile="guigang", steps=10_000):
    g = tractor.Game(seed=seed, profile=profile)
    for i in range(steps):
        if g.current_player is None:
            break
        g.step_policy("greedy", i)
    return g


def test_the_page_is_self_contained():
    page = to_html(_hand())
    assert page.startswith("<!DOCTYPE html>")
    assert "default-src 'none'" in page  # the page may fetch nothing
    for pattern in (r'src\s*=\s*"(?!data:)', r'href\s*=\s*"http', r"@import", r"url\((?!data:)", r"fetch\("):
        assert not re.search(pattern, page), pattern
    assert "/*DATA*/" not in page and "/*SCRIPT*/" not in page


def test_a_hostile_title_stays_text():
    page = to_html(_hand(), title="</script><script>alert(1)</script> /*DATA*/")
    assert page.count("</script>") == 3  # the data, cards.js and view.js: no injected element
    assert _data(page)["title"].startswith("</script>")


@pytest.mark.parametrize("profile", ["guigang", "nanning", "competition"])
def test_frames_agree_with_the_hand(profile):
    g = _hand(seed=3, profile=profile)
    d = _data(to_html(g))
    assert d["format"] == model.VIEW_FORMAT and d["engine"] == tractor.__version__ and d["profile"] == profile
    tricks = g.tricks
    assert len(d["tricks"]) == len(tricks)
    for t, v in zip(tricks, d["tricks"]):
        assert v["leader"] == t.leader and v["winner"] == t.winner and v["points"] == t.points
        assert [[s, [int(c) for c in cs]] for s, cs in t.plays] == v["plays"]
    plays = [a for a in g.record()["actions"] if a[1] == "play"]
    assert sum(f["kind"] == "play" for f in d["frames"]) == len(plays)
    last = d["frames"][-1]
    assert last["points"] == g.defender_points and last["phase"] == "over"
    assert d["result"]["score"] == g.result.score and d["result"]["next_banker"] == g.result.next_banker
    # each trick's frame is the one after its last play
    for i, j in enumerate(d["trick_frames"]):
        assert d["frames"][j]["trick"] == i + 1 and d["frames"][j]["current"] == []
    # the whole table's hands shrink by exactly the cards played
    first_play = next(i for i, f in enumerate(d["frames"]) if f["kind"] == "play")
    start = d["frames"][first_play - 1]
    assert sum(len(x) for h in start["hands"] for grp in h for x in [grp]) == sum(len(h) for h in [g.hand(s) for s in range(4)]) + sum(
        len(c) for t in tricks for _, c in t.plays
    )


def test_seat_views_hold_only_the_seats_cards():
    g = _hand(seed=4)
    d = _data(to_html(g, seat=2))
    assert d["initial_view"] == "2"
    for f in d["frames"]:
        for s, v in enumerate(f["views"]):
            # a seat's view holds its own hand and, for the others, only counts and proofs
            assert sorted(k for grp in v["hand"] for k in grp) == sorted(k for grp in f["hands"][s] for k in grp)
            assert set(v["others"]) == {str(p) for p in range(4) if p != s}
            for p, o in v["others"].items():
                assert set(o) == {"cards", "void", "must"}
                assert o["cards"] == sum(len(grp) for grp in f["hands"][int(p)])
                held = [k for grp in f["hands"][int(p)] for k in grp]
                assert all(held.count(k) >= o["must"].count(k) for k in o["must"])  # proofs are true


def test_follow_notes_name_the_ladders_rule():
    g = _hand(seed=5)
    d = _data(to_html(g))
    notes = [f["note"] for f in d["frames"] if f["note"]]
    assert notes and all(re.match(r"^(R5\.2|R5\.3 T[1-4])$", n["rule"]) for n in notes)
    assert any(n["rule"].startswith("R5.3") for n in notes)
    forced = [n for n in notes if n["forced"]]
    assert all(n["choices"] == "1" for n in forced)


def test_hidden_suits_in_the_model():
    """R8.2: during the deal no other seat's view holds the suit of a showing."""
    g = _hand(seed=7)
    d = _data(to_html(g))
    dealing = [f for f in d["frames"] if f["phase"] == "declare" and f["showings"]]
    assert dealing
    for f in dealing:
        for s, v in enumerate(f["views"]):
            for a, t, seat, k, suit in v["showings"]:
                if seat != s:
                    assert suit is None
    after = d["frames"][-1]["views"][(g.declarer + 1) % 4]["showings"]
    assert after[-1][4] == g.trump
    assert d["showings"][-1][5] is True  # the final run is public


def test_decisions_are_carried():
    g = _hand(seed=6)
    k = next(i for i, a in enumerate(g.record()["actions"]) if a[1] == "play")
    d = _data(to_html(g, decisions={k: {"policy": "ismcts:x", "stats": []}}))
    assert [f["decision"]["policy"] for f in d["frames"] if "decision" in f] == ["ismcts:x"]


def test_unfinished_and_stopped_hands_render():
    g = tractor.Game(seed=2)
    d = _data(to_html(g))
    assert d["frames"][0]["kind"] == "start" and d["result"] is None
    g = tractor.Game.from_deal(["As Ks", "Qs Js", "10s 9s", "8s 7s"], level=10, trump="h")
    d = _data(to_html(g))
    assert d["frames"][0]["label"] == "the hands as given"


def test_load_every_source(tmp_path):
    g = _hand(seed=8)
    p = tmp_path / "hand.json"
    p.write_text(g.to_json())
    got, dec, _ = load(p)
    assert got == g and dec == {}
    (tmp_path / "hand.decisions.json").write_text(json.dumps({"3": {"policy": "p"}}))
    assert load(p)[1] == {3: {"policy": "p"}}
    # a records file: hand K is that hand, replayed
    rp = tmp_path / "run.trec"
    tractor.simulate(12, ["greedy"] * 4, seed=3, records=str(rp), threads=1)
    hands = list(tractor.read_records(rp))
    assert load(rp, 5)[0] == hands[5] and load(rp)[0] == hands[0]
    with pytest.raises(RecordsError, match="no hand 12"):
        load(rp, 12)
    with pytest.raises(InvalidRecord, match="holds one hand"):
        load(p, 2)
    with pytest.raises(InvalidArgument):
        load(p, -1)
    with pytest.raises(InvalidArgument):
        load(3.5)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InvalidRecord, match="not JSON"):
        load(bad)
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00" * 100)
    with pytest.raises(RecordsError):
        load(junk)
    with pytest.raises(InvalidArgument):
        to_html("hand.json")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        to_html(g, seat=4)


def test_write_html_is_whole_or_nothing(tmp_path):
    out = tmp_path / "x.html"
    write_html(out, _hand(seed=9))
    assert out.read_text(encoding="utf-8").endswith("</html>\n")
    assert [p.name for p in tmp_path.iterdir()] == ["x.html"]


def test_cli_view(tmp_path):
    g = _hand(seed=10)
    (tmp_path / "h.json").write_text(g.to_json())
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-m", "tractor.cli", "view", "h.json"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert "wrote h.html" in r.stdout and (tmp_path / "h.html").exists()
    r = subprocess.run([sys.executable, "-m", "tractor.cli", "view", "h.json", "--hand", "3", "-o", "y.html"], cwd=tmp_path,
                       capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "holds one hand" in r.stderr and not (tmp_path / "y.html").exists()
    r = subprocess.run([sys.executable, "-m", "tractor.cli", "view", "missing.json"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 2 and "missing.json" in r.stderr
    r = subprocess.run([sys.executable, "-m", "tractor.cli", "view", "h.json", "-o", "x.txt"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 2 and ".html" in r.stderr


def test_arrange_keeps_every_card_and_groups_only_tractors():
    """Context.arrange: the hand's cards, trumps first, each class strongest first; a group of
    several kinds is a tractor (two of each of its kinds classify as one, R3.3), and no two
    groups of two or more copies that could join into a longer one are left apart."""
    import random

    from tractor.rules import Context

    rnd = random.Random(5)
    deck = [k for k in range(54) for _ in range(4)]
    for i in range(400):
        ctx = Context(rnd.randint(3, 14), "shdc"[rnd.randrange(4)], ["guigang", "nanning", "competition"][i % 3])
        hand = rnd.sample(deck, rnd.randint(1, 60))
        classes = ctx.arrange(hand)
        flat = [int(c) for cls in classes for g in cls for c in g]
        assert sorted(flat) == sorted(hand)
        assert [ctx.is_trump(cls[0][0]) for cls in classes][:1] in ([True], [False])
        assert all(not ctx.is_trump(cls[0][0]) for cls in classes[1:])
        for cls in classes:
            for g in cls:
                kinds = sorted(set(int(c) for c in g))
                if len(kinds) > 1:
                    combo = ctx.classify([k for k in kinds for _ in range(2)])
                    assert combo is not None and combo.kind == "tractor", (ctx, g)
                    assert all(g.count(k) >= 2 for k in kinds)
            # no two paired groups form a longer tractor together
            paired = [sorted(set(int(c) for c in g)) for g in cls if all(g.count(k) >= 2 for k in set(g))]
            for a in paired:
                for b in paired:
                    if a is not b:
                        c = ctx.classify([k for k in a + b for _ in range(2)])
                        assert c is None or c.kind != "tractor", (ctx, a, b)


def test_hostile_arguments_of_the_viewer_and_the_table(tmp_path):
    """Numpy integers work where ints do; wrong types and out-of-range values end in a
    TractorError naming the argument."""
    import numpy as np

    from tractor.view.server import Table, serve

    g = _hand(seed=11)
    p = tmp_path / "h.json"
    p.write_text(g.to_json())
    assert load(p, np.int64(0))[0] == g
    for bad in (-1, 2**70, 1.5, "0", True):
        with pytest.raises(InvalidArgument, match="hand"):
            load(p, bad)
    for bad in (5, None, {"a": 1}):
        with pytest.raises(InvalidArgument, match="opponents"):
            Table(opponents=bad)
    with pytest.raises(InvalidArgument, match="seat"):
        Table(seat=4)
    t = Table()
    try:
        for bad in (-1, 65536, 2**63, 1.0, "80"):
            with pytest.raises(InvalidArgument, match="port"):
                serve(t, bad)
    finally:
        t.stop()
    assert to_html(g, seat=np.int64(1))
