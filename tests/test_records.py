"""Hand records (``Game.to_json`` / ``Game.from_json``) and golden files.

- Round trip: ``from_json(to_json())`` re-serialises byte-identically and equals the original,
  for seeded, given-deck, from_deal, stopped and unfinished hands.
- Tampered records are refused with ``tractor.IllegalAction``.
- Golden: a seeded deal (the first cards of the deck, the first seat) and three whole
  playthroughs under ``tests/golden/``. After an intended change of the rules, the PRNG or the
  deal, regenerate them with ``TRACTOR_REGEN_GOLDEN=1 python -m pytest tests/test_records.py``
  and review the diff.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import tractor
from tractor import IllegalAction, Pass

sys.path.insert(0, os.path.dirname(__file__))
from _game_util import build_deck, drive_deal  # noqa: E402

GOLDEN = Path(__file__).parent / "golden"
REGEN = os.environ.get("TRACTOR_REGEN_GOLDEN") == "1"


def _seeded(seed, policy, profile="guigang"):
    g = tractor.Game(seed=seed, profile=profile)
    g.play_random(policy)
    return g


def _given_deck(redeal=False, play=True):
    lc = {s: {5: "3h", 6: "3s", 7: "3d", 8: "3c"} for s in range(4)}
    g = tractor.Game.deal(77, deck=build_deck(lc, first_seat=2, fill_seed=3), first_seat=2)

    def decide(dealt, seat, actions):
        if redeal and g._g.redeals == 0:
            return Pass()
        return actions[-1] if len(actions) > 1 else Pass()

    drive_deal(g, decide)
    if play:
        g.play_random(5)
    return g


def _later_hand():
    g = tractor.Game.deal(1234, levels=(9, 12), banker=3, profile="nanning")
    g.play_random(8)
    return g


def _from_deal(finish=True):
    g = tractor.Game.from_deal(FROM_DEAL_HANDS, level=3, trump="s", banker=0)
    if finish:
        g.play_random(5)
    else:
        for i in range(9):
            g.step_random(i)
    return g


def _stopped():
    g = tractor.Game(seed=5)
    drive_deal(g)
    assert g.stopped
    return g


def _mid_deal():
    g = tractor.Game(seed=7)
    for i in range(2):
        g.step_random(i)
    assert g.phase == "declare"
    return g


FROM_DEAL_HANDS = [
    "6s 8s 4h 9h Kh 2d 5d 8d 9d 9d 8c Qc Qc",
    "2s 5s 9s Qs Qs As As 2h 7d 8d 9c Jc Ac",
    "3s 7s Ks 6h 7h Ah 2d 6d Jd Kd 3c 5c 10c",
    "4s 5s Qs 3h 4h 10h Ah 2d 5d Qd 2c 8c 10c",
]

CASES = {
    "seeded_guigang_0": lambda: _seeded(0, 1),
    "seeded_guigang_7": lambda: _seeded(7, 11),
    "seeded_nanning_8": lambda: _seeded(8, 12, "nanning"),
    "seeded_nanning_99": lambda: _seeded(99, 3, "nanning"),
    "given_deck": lambda: _given_deck(),
    "given_deck_redealt": lambda: _given_deck(redeal=True),
    "given_deck_unplayed": lambda: _given_deck(play=False),
    "later_hand": _later_hand,
    "from_deal": lambda: _from_deal(),
    "from_deal_unfinished": lambda: _from_deal(finish=False),
    "stopped": _stopped,
    "mid_deal": _mid_deal,
}


@pytest.mark.parametrize("name", list(CASES))
def test_round_trip_is_exact(name):
    g = CASES[name]()
    text = g.to_json()
    h = tractor.Game.from_json(text)
    assert h.to_json() == text
    assert h == g
    assert h.phase == g.phase and h.current_player == g.current_player and h.stopped == g.stopped
    assert [h.hand(s) for s in range(4)] == [g.hand(s) for s in range(4)]
    # The replayed game continues like the original.
    if g.phase != "over":
        g.play_random(42)
        h.play_random(42)
        assert h.to_json() == g.to_json()
    # And records are deterministic: building the same hand again gives the same text.
    assert CASES[name]().to_json() == text


@pytest.mark.parametrize("name", list(CASES))
def test_record_header(name):
    g = CASES[name]()
    rec = json.loads(g.to_json())
    assert rec["format"] == "tractor-engine/hand"
    assert rec["format_version"] == 1
    assert rec["engine"] == tractor.__version__
    assert rec["profile"] == g.profile
    assert rec["stopped"] == g.stopped
    if g.result is None:
        assert rec["result"] is None
    else:
        assert rec["result"]["score"] == g.result.score
        assert rec["result"]["next_banker"] == g.result.next_banker


def test_given_deck_is_in_the_record():
    g = _given_deck()
    start = json.loads(g.to_json())["start"]
    assert start["kind"] == "deal" and start["first_seat"] == 2
    lc = {s: {5: "3h", 6: "3s", 7: "3d", 8: "3c"} for s in range(4)}
    assert tractor.parse(start["deck"]) == build_deck(lc, first_seat=2, fill_seed=3)


# -- tampering -----------------------------------------------------------------------------------


def _tamper(g, edit):
    rec = json.loads(g.to_json())
    edit(rec)
    return json.dumps(rec)


def _first_play_index(rec):
    return next(i for i, a in enumerate(rec["actions"]) if a[1] == "play")


def _change_first_play_to_a_card_not_held(rec):
    i = _first_play_index(rec)
    seat = rec["actions"][i][0]
    g = tractor.Game.from_json(json.dumps({**rec, "actions": rec["actions"][:i], "result": None}))
    held = set(int(c) for c in g.hand(seat))
    other = next(c for c in tractor.CARDS if int(c) not in held)
    rec["actions"][i][2] = str(other)


TAMPERS = {
    "play_not_held": _change_first_play_to_a_card_not_held,
    "play_replaced_by_declare": lambda r: r["actions"].__setitem__(_first_play_index(r), [r["actions"][_first_play_index(r)][0], "declare", "h", 1]),
    "seat_changed": lambda r: r["actions"][-1].__setitem__(0, (r["actions"][-1][0] + 1) % 4),
    "unknown_kind": lambda r: r["actions"][-1].__setitem__(1, "throw"),
    "action_dropped": lambda r: r["actions"].pop(),
    "action_added": lambda r: r["actions"].append(r["actions"][-1]),
    "score_changed": lambda r: r["result"].__setitem__("score", r["result"]["score"] + 5),
    "next_banker_changed": lambda r: r["result"].__setitem__("next_banker", (r["result"]["next_banker"] + 1) % 4),
    "levels_changed": lambda r: r["result"].__setitem__("banker_levels", r["result"]["banker_levels"] + 1),
    "result_removed": lambda r: r.__setitem__("result", None),
    "format_changed": lambda r: r.__setitem__("format", "something/else"),
    "version_changed": lambda r: r.__setitem__("format_version", 2),
    "start_removed": lambda r: r.pop("start"),
    "start_kind": lambda r: r["start"].__setitem__("kind", "magic"),
}


@pytest.mark.parametrize("what", list(TAMPERS))
@pytest.mark.parametrize("name", ["seeded_guigang_7", "seeded_nanning_8", "from_deal", "given_deck"])
def test_tampered_record_is_refused(name, what):
    g = CASES[name]()
    text = _tamper(g, TAMPERS[what])
    assert text != g.to_json()
    with pytest.raises(IllegalAction):
        tractor.Game.from_json(text)


@pytest.mark.parametrize("name", ["seeded_guigang_7", "seeded_nanning_8"])
def test_tampered_hand_seed_is_refused(name):
    g = CASES[name]()
    text = _tamper(g, lambda r: r["start"].__setitem__("hand_seed", r["start"]["hand_seed"] + 1))
    with pytest.raises(IllegalAction):
        tractor.Game.from_json(text)


@pytest.mark.parametrize("name", ["stopped", "seeded_guigang_7"])
def test_tampered_stopped_flag_is_refused(name):
    """"stopped" is part of the hand's result (R8.5: no result): a record that claims the
    opposite of its replay is tampered."""
    g = CASES[name]()
    text = _tamper(g, lambda r: r.__setitem__("stopped", not r["stopped"]))
    with pytest.raises(IllegalAction):
        tractor.Game.from_json(text)


def test_tampered_from_deal_hands_are_refused():
    g = _from_deal()
    # Give seat 0 a card that belongs to seat 1: the replay's plays no longer fit.
    text = _tamper(g, lambda r: r["start"]["hands"].__setitem__(0, r["start"]["hands"][1]))
    with pytest.raises(tractor.TractorError):
        tractor.Game.from_json(text)


@pytest.mark.parametrize("text", ["", "not json", "[]", "42", "null", '{"format": "tractor-engine/hand"}', '"x"'])
def test_garbage_records_are_refused(text):
    with pytest.raises(IllegalAction):
        tractor.Game.from_json(text)


def test_non_string_record_is_refused():
    with pytest.raises(IllegalAction):
        tractor.Game.from_json(None)  # type: ignore[arg-type]


# -- golden ---------------------------------------------------------------------------------------

#: The first 20 cards of ``Game.deal(hand_seed=12345)`` (kind ids) and its first seat: pins
#: the seed derivation, xoshiro256** and the Fisher–Yates deal of game/deal.rs.
DEAL_12345_FIRST_20 = [31, 8, 10, 17, 42, 26, 0, 11, 9, 40, 45, 8, 48, 9, 31, 3, 35, 45, 47, 29]
DEAL_12345_FIRST_20_TEXT = "7d 10s Qs 6h 5c 2d 2s Ks Js 3c 8c 10s Jc Js 7d 5s Jd 8c 10c 5d"
DEAL_12345_FIRST_SEAT = 0


def test_golden_seeded_deal():
    g = tractor.Game.deal(hand_seed=12345)
    deck = list(g._g.deck())
    assert len(deck) == 216 and sorted(deck) == [k for k in range(54) for _ in range(4)]
    assert deck[:20] == DEAL_12345_FIRST_20
    assert tractor.format([tractor.CARDS[k] for k in deck[:20]]) == DEAL_12345_FIRST_20_TEXT
    assert g._g.first_seat == DEAL_12345_FIRST_SEAT
    # Card t goes to seat (first_seat + t) % 4 (R1.3): the hands so far are the first cards.
    n = g._g.dealt
    for s in range(4):
        want = sorted(deck[t] for t in range(n) if (DEAL_12345_FIRST_SEAT + t) % 4 == s)
        assert sorted(int(c) for c in g.hand(s)) == want


def _golden_guigang():
    g = tractor.Game(seed=7)
    g.play_random(11)
    return g


def _golden_nanning():
    g = tractor.Game(seed=8, profile="nanning")
    g.play_random(12)
    return g


def _golden_from_deal():
    g = tractor.Game.from_deal(FROM_DEAL_HANDS, level=3, trump="s", banker=0)
    g.play_random(5)
    return g


def _golden_competition():
    g = tractor.Game(seed=9, profile="competition")
    g.play_random(13)
    return g


GOLDEN_FILES = {
    "guigang_seed7_policy11.txt": _golden_guigang,
    "nanning_seed8_policy12.txt": _golden_nanning,
    "from_deal_level3_policy5.txt": _golden_from_deal,
    "competition_seed9_policy13.txt": _golden_competition,
}


@pytest.mark.parametrize("fname", list(GOLDEN_FILES))
def test_golden_playthrough(fname):
    g = GOLDEN_FILES[fname]()
    assert g.phase == "over" and g.result is not None
    text = tractor.playthrough(g)
    path = GOLDEN / fname
    if REGEN:
        GOLDEN.mkdir(exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    assert path.exists(), f"{path} is missing: run TRACTOR_REGEN_GOLDEN=1 python -m pytest {__file__}"
    want = path.read_bytes().decode("utf-8")
    assert text == want, (
        f"{path.name} differs from this build's playthrough. If the change is intended (rules, PRNG, "
        f"deal or the playthrough format), regenerate with TRACTOR_REGEN_GOLDEN=1 python -m pytest "
        f"tests/test_records.py and review the diff."
    )
    # The golden text is also a replayable hand: the record behind it round-trips.
    assert tractor.Game.from_json(g.to_json()).to_json() == g.to_json()


def _match_text(m: "tractor.Match") -> str:
    lines = [f"# tractor-engine match, profile {m.profile}, seed {m.seed}"]
    for h in m.history:
        lines.append(
            f"hand {h.index}: banker {h.banker}, level {h.level}, trump {h.trump}, score {h.score}, "
            f"levels after {h.levels_after[0]}/{h.levels_after[1]}, passed A: {h.passed_a}"
        )
    lines.append(f"winner: team {m.winner[0]} in hand {m.winner[1]}" if m.winner else "winner: none")
    return "\n".join(lines) + "\n"


def test_golden_competition_match_ends_at_a():
    """C8: a seeded competition match played by the random policy until a team passes A as the
    banker team (D11); levels stop at A; the match is over and refuses another hand."""
    m = tractor.Match(seed=21, profile="competition")
    m.play_random(until_passed_a=True, seed=5)
    assert m.winner is not None and m.over
    last = m.history[-1]
    assert last.level == 14 and last.passed_a == m.winner[0] and last.score is not None and last.score < 160
    assert all(3 <= lv <= 14 for h in m.history for lv in h.levels_after)
    with pytest.raises(tractor.IllegalAction, match="C8"):
        m.next_hand()
    text = _match_text(m)
    path = GOLDEN / "competition_match_seed21_policy5.txt"
    if REGEN:
        path.write_bytes(text.encode("utf-8"))
    assert path.exists(), f"{path} is missing: run TRACTOR_REGEN_GOLDEN=1 python -m pytest {__file__}"
    assert text == path.read_bytes().decode("utf-8"), f"{path.name} differs: regenerate with TRACTOR_REGEN_GOLDEN=1 and review"


# -- what a refused record raises (the core reads and replays JSON records) -------------------


def _illegal_follow_record():
    """A finished hand's record with one follow replaced by an illegal follow of the same
    size from the seat's own cards, and the index of that decision."""
    import itertools

    g = tractor.Game(seed=3)
    g.play_random(4)
    rec = g.record()
    for i, (seat, kind, *rest) in enumerate(rec["actions"]):
        if kind != "play":
            continue
        before = tractor.Game.from_record({**rec, "actions": rec["actions"][:i], "result": None, "stopped": False})
        if not before.current_trick:
            continue  # a lead
        size = len(rest[0].split())
        for cards in itertools.combinations(before.hand(seat), size):
            try:
                before.clone().apply(list(cards))
            except tractor.IllegalFollow:
                rec["actions"][i][2] = tractor.format(list(cards))
                return rec, i
    raise AssertionError("no follow could be made illegal")


def test_an_illegal_follow_in_a_record_is_an_illegal_follow_with_its_fields():
    rec, i = _illegal_follow_record()
    with pytest.raises(tractor.IllegalFollow) as e:
        tractor.Game.from_record(rec)
    assert str(e.value).startswith(f"actions[{i}]: R5.")
    assert e.value.rule.startswith("R5") and e.value.required_tier and e.value.met_tier
    assert e.value.example, "a legal play of the position"


def test_refusals_keep_their_class_or_become_invalid_record():
    g = tractor.Game(seed=3)
    g.play_random(4)
    rec = g.record()
    i = _first_play_index(rec)
    for cards, cls in [("9s 9s 9s 9s 9s", tractor.errors.InvalidRecord), ("Zz", tractor.errors.InvalidRecord)]:
        bad = json.loads(json.dumps(rec))
        bad["actions"][i][2] = cards
        with pytest.raises(cls, match=rf"^actions\[{i}\]: "):
            tractor.Game.from_record(bad)
    bad = json.loads(json.dumps(rec))
    seat = bad["actions"][i][0]
    other = next(c for c in tractor.CARDS if c not in tractor.Game.from_record(
        {**rec, "actions": rec["actions"][:i], "result": None, "stopped": False}).hand(seat))
    bad["actions"][i][2] = str(other)
    with pytest.raises(tractor.errors.CardsNotInHand, match=rf"^actions\[{i}\]: "):
        tractor.Game.from_record(bad)


def test_from_record_takes_numpy_scalars_and_refuses_what_is_not_json():
    g = tractor.Game(seed=3)
    g.play_random(4)
    rec = g.record()
    rec["start"]["hand_seed"] = np.uint64(rec["start"]["hand_seed"])
    rec["actions"][0][0] = np.int8(rec["actions"][0][0])
    assert tractor.Game.from_record(rec) == g
    for value in [{1, 2}, float("nan"), object()]:
        bad = g.record()
        bad["start"]["hand_seed"] = value
        with pytest.raises(tractor.errors.InvalidRecord):
            tractor.Game.from_record(bad)


def test_the_record_format_is_the_cores():
    from tractor import _core

    assert (tractor.game.RECORD_FORMAT, tractor.game.RECORD_VERSION) == (_core.RECORD_FORMAT, _core.RECORD_VERSION)
    rec = tractor.Game(seed=1).record()
    assert (rec["format"], rec["format_version"], rec["engine"]) == (_core.RECORD_FORMAT, _core.RECORD_VERSION, tractor.__version__)
