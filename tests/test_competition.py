"""The competition profile (RULES §10) through the Python API: every place a profile is taken
(Context, Game, Match, simulate, the CLI, records, observations), the follow rules C1-C5 with
their error fields, the result table C7, the match end C8 and the declaring rule C9."""

from __future__ import annotations

import json

import pytest

import tractor
from tractor import Declare, IllegalAction, IllegalFollow

C = "competition"


def test_profiles_list_and_bad_names():
    assert C in tractor.PROFILES
    with pytest.raises(tractor.TractorError, match="competition"):
        tractor.Context(10, "h", "tournament")


def test_c1_links_in_the_context():
    ctx = tractor.Context(10, "h", C)
    assert ctx.classify("Ah Ah 2h 2h") is None  # C1: no A-2 link
    assert ctx.classify("2h 2h 3h 3h").kind == "tractor"
    assert tractor.Context(10, "h").classify("Ah Ah 2h 2h").kind == "tractor"  # guigang: R3.3


@pytest.mark.parametrize(
    "hand, lead, want",
    [
        # C4: ♠555 888 vs ♠KKKK -> ♠5558 or ♠8885
        ("5s 5s 5s 8s 8s 8s", "Ks Ks Ks Ks", {"5s 5s 5s 8s", "5s 8s 8s 8s"}),
        # C5: ♠334455 vs ♠666777 JJQQKK -> ♠JJQQKK only
        ("6s 6s 6s 7s 7s 7s Js Js Qs Qs Ks Ks", "3s 3s 4s 4s 5s 5s", {"Js Js Qs Qs Ks Ks"}),
        # C2/C5: ♠44556677 vs ♠JJQQ 8888 33 A K -> ♠JJQQ8888 only
        ("Js Js Qs Qs 8s 8s 8s 8s 3s 3s As Ks", "4s 4s 5s 5s 6s 6s 7s 7s", {"8s 8s 8s 8s Js Js Qs Qs"}),
        # C5: ♠333444 vs ♠777 999 QQ K -> ♠7799QQ; vs ♠777 999 K A -> ♠777999
        ("7s 7s 7s 9s 9s 9s Qs Qs Ks", "3s 3s 3s 4s 4s 4s", {"7s 7s 9s 9s Qs Qs"}),
        ("7s 7s 7s 9s 9s 9s Ks As", "3s 3s 3s 4s 4s 4s", {"7s 7s 7s 9s 9s 9s"}),
        # C1/C5: ♥5566 vs ♥AA 22 66 9 -> any two of the pairs
        ("Ah Ah 2h 2h 6h 6h 9h", "5h 5h 6h 6h", {"2h 2h Ah Ah", "6h 6h Ah Ah", "2h 2h 6h 6h"}),
    ],
)
def test_c4_c5_examples(hand, lead, want):
    ctx = tractor.Context(10, "h", C)
    got = {tractor.format(sorted(p, key=int)) for p in ctx.legal_follows(hand, lead)}
    norm = {tractor.format(sorted(tractor.parse(w), key=int)) for w in want}
    assert got == norm
    assert ctx.count_legal_follows(hand, lead) == len(norm)
    for seed in range(5):
        assert tractor.format(sorted(ctx.random_follow(hand, lead, seed), key=int)) in norm


def test_c5_illegal_follow_fields():
    ctx = tractor.Context(10, "h", C)
    hand, lead = "Js Js Qs Qs 6s 6s 8s 8s As", "3s 3s 4s 4s 5s 5s"
    with pytest.raises(IllegalFollow) as e:
        ctx.check_follow(hand, lead, "6s 6s 8s 8s Js Qs")
    err = e.value
    assert err.rule == "C5" and err.required_tier == "C5 L" and err.met_tier == "C5 p"
    assert "C5" in str(err) and "L (4), p 1" in str(err)
    assert ctx.is_legal_follow(hand, lead, err.example)
    req = ctx.follow_requirement(hand, lead)
    assert req == {"tier": "C5 L", "tractor_cards": 4, "pairs": 1}
    # C4 on a bomb lead
    with pytest.raises(IllegalFollow) as e:
        ctx.check_follow("5s 5s 5s 8s 8s 8s", "Ks Ks Ks Ks", "5s 5s 8s 8s")
    assert (e.value.rule, e.value.required_tier, e.value.met_tier) == ("C4", "C4 a triple and a card", "C4 two pairs")


def test_follow_completions_card_by_card():
    ctx = tractor.Context(10, "h", C)
    hand, lead = "Js Js Qs Qs 6s 6s 8s 8s As", "3s 3s 4s 4s 5s 5s"
    first = {str(c) for c in ctx.follow_completions(hand, lead)}
    assert first == {"Js", "Qs", "6s", "8s"}  # As is in no legal follow (JJQQ + 66 or 88)
    after = {str(c) for c in ctx.follow_completions(hand, lead, "Js Js Qs Qs 6s")}
    assert after == {"6s"}


def test_c7_result_table():
    assert tractor.outcome(-400, C).banker_levels == 3  # C7: no extra level below 0
    assert tractor.outcome(-400, "guigang").banker_levels == 8
    assert tractor.outcome(960, C).defender_levels == 3


def test_game_record_and_observation_carry_the_profile():
    g = tractor.Game(seed=9, profile=C)
    assert g.profile == C
    assert g.observation(0).profile == C
    g.play_random(3)
    assert g.phase == "over"
    rec = json.loads(g.to_json())
    assert C in json.dumps(rec)
    again = tractor.Game.from_json(g.to_json())
    assert again.profile == C and again.to_json() == g.to_json()


def test_c9_first_hand_showings_need_a_small_joker():
    refused = 0
    for seed in range(40):
        g = tractor.Game(seed=seed, profile=C)
        step = 0
        while g.phase == "declare":
            seat = g.current_player
            hand = [str(c) for c in g.hand(seat)]
            acts = g.legal_actions()
            d = g.declaration
            reinforce = d is not None and d[0] == seat
            if "SJ" not in hand and not reinforce:
                assert all(not isinstance(a, Declare) for a in acts), "C9: only the pass"
                need = 1 if d is None else d[2] + 1
                suit = next((s for s in "shdc" if hand.count(f"3{s}") >= need), None)
                if suit is not None:
                    before = g.to_json()
                    with pytest.raises(IllegalAction, match="C9"):
                        g.apply(Declare(suit, need))
                    assert g.to_json() == before
                    refused += 1
            g.step_random(seed * 100_000 + step)
            step += 1
    assert refused > 5


def test_c8_match_ends_at_a():
    m = tractor.Match(seed=3, profile=C)
    m.play_random(hands=500)  # stops at the end of the match (C8)
    assert m.over and m.winner is not None
    team, hand = m.winner
    last = m.history[-1]
    assert hand == last.index and last.level == 14 and last.passed_a == team
    assert all(3 <= lv <= 14 for h in m.history for lv in h.levels_after)
    with pytest.raises(IllegalAction, match="C8"):
        m.next_hand()
    # guigang keeps playing past A (R7.5)
    g = tractor.Match(seed=3)
    g.play_random(hands=5)
    assert not g.over


def test_simulate_matches_report_the_team_that_passes_a():
    r = tractor.simulate(matches=4, policies="random,greedy,random,greedy", profile=C, seed=4)
    s = r.summary()
    assert s["profile"] == C and s["finished"] == 4
    assert set(int(w) for w in r["winner"]) <= {0, 1}


@pytest.mark.parametrize("policies", ["random,random,random,random", "greedy,greedy,greedy,greedy", "pimc,random,ismcts,greedy"])
def test_every_builtin_policy_plays_competition(policies):
    r = tractor.simulate(hands=2 if "pimc" in policies else 20, policies=policies, profile=C, seed=7)
    assert r.summary()["played"] + r.summary()["stopped"] == (2 if "pimc" in policies else 20)


def test_cli_takes_the_profile(tmp_path, monkeypatch, capsys):
    from tractor.cli import main

    monkeypatch.chdir(tmp_path)
    for what in (["--hands", "20"], ["--matches", "2"]):
        rc = main(["simulate", *what, "--threads", "1", "--profile", C, "--seed", "1"])
        assert rc == 0
        assert C in capsys.readouterr().out
