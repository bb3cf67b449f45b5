"""Bad arguments of the public API: each is refused with a TractorError subclass (a ValueError)
whose message names the argument, before anything changes. One class and one message shape per
kind of bad value (a profile, a policy, a seed, a count, a flag, threads, a seat), whatever the
entry point: the rules API, Game and Match, VecEnv, the searches, ``simulate`` and the envs."""

from __future__ import annotations

import numpy as np
import pytest

import tractor
from tractor import Card, Context, Game, Match
from tractor import errors as E

G = Context(10, "h")
HUGE = [2**63, 2**64, -1, float("inf"), float("nan"), True, np.float64(2.0)]


@pytest.mark.parametrize("v", HUGE, ids=repr)
def test_huge_and_odd_numbers_as_cards_seats_seeds_counts(v):
    calls = [
        (lambda: Card(v), E.CardParseError, "card"),
        (lambda: tractor.format([v]), E.CardParseError, "card"),
        (lambda: G.is_trump(v), E.CardParseError, "card"),
        (lambda: G.classify([v]), E.TractorError, ""),
        (lambda: G.random_follow("As Ks", "3s", v), E.InvalidArgument, "seed"),
        (lambda: G.nth_legal_follow("As Ks", "3s", v), E.TractorError, "index"),  # too big: past the last
        (lambda: Game(v), E.InvalidArgument, "seed"),
        (lambda: Game.deal(v), E.InvalidArgument, "hand_seed"),
        (lambda: Game.deal(1, banker=v), E.InvalidSeat, "banker"),
        (lambda: Game.deal(1, hand_index=v), E.InvalidArgument, "hand_index"),
        (lambda: Game(1).hand(v), E.InvalidSeat, "seat"),
        (lambda: Match(1).play_random(hands=v), E.InvalidArgument, "hands"),
    ]
    seeds = {"seed", "hand_seed"}
    for f, cls, word in calls:
        if v == 2**63 and word in seeds:
            f()  # 2**63 is a valid 64-bit seed: it must work
            continue
        with pytest.raises(cls) as e:
            f()
        assert isinstance(e.value, ValueError) and word in str(e.value)
        assert cls is E.TractorError or type(e.value) is cls, (word, e.value)


@pytest.mark.parametrize("levels", [(3,), (3, 3, 3), [], "33", {}, None, (3, "X"), (3, 2)], ids=repr)
def test_bad_levels(levels):
    with pytest.raises(E.InvalidContext, match="level"):
        Game.deal(1, levels=levels)


def test_banker_255_is_not_no_banker():
    with pytest.raises(E.InvalidSeat, match="banker 255"):
        Game.deal(1, banker=255)
    assert Game.deal(1, banker=None).banker is None


def test_banker_7_is_a_bad_seat_not_invalid_plays():
    with pytest.raises(E.InvalidSeat) as e:
        Game.deal(1, banker=7)
    assert not isinstance(e.value, E.InvalidPlays)


def test_deeply_nested_json():
    for text in ["[" * 100_000, "{\"a\":" * 100_000]:
        with pytest.raises(E.InvalidRecord):
            Game.from_json(text)


@pytest.mark.parametrize("name", ["\ud800", "nan\udcffning"], ids=repr)
def test_lone_surrogates(name):
    for f in (lambda: Game(0, name), lambda: Match(0, name), lambda: Context(10, "h", name),
              lambda: tractor.parse(name), lambda: Card(name)):
        with pytest.raises(E.TractorError):
            f()
    with pytest.raises(E.InvalidPolicy):
        Game(0).playout(name)


def test_context_names_the_bad_level_text():
    with pytest.raises(E.InvalidContext, match='"X"'):
        Context("X", "h")


def test_record_seat_as_a_string():
    g = Game(3)
    g.play_random(1)
    rec = g.record()
    rec["actions"][0][0] = str(rec["actions"][0][0])
    with pytest.raises(E.InvalidRecord, match=r"actions\[0\] seat must be an int, got str"):
        Game.from_record(rec)


@pytest.mark.parametrize("t", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
def test_numpy_integers_everywhere(t):
    g = Game(t(5))
    assert g == Game(5)
    assert G.random_follow("As Ks 3s", "4s", t(7)) == G.random_follow("As Ks 3s", "4s", 7)
    assert len(G.legal_follows("As Ks 3s", "4s", t(10))) == 3
    m = Match(t(2))
    m.play_random(hands=t(1), seed=t(3))
    assert len(m.history) == 1
    assert Game.deal(t(9), levels=(t(3), t(3))) == Game.deal(9)


@pytest.mark.parametrize("name", ["NANNING", " Nanning ", "nanning"])
def test_profile_names_are_normalised(name):
    assert Game(1, name).profile == Match(1, name).profile == Context(10, "h", name).profile == "nanning"
    assert tractor.simulate(hands=2, profile=name, threads=1).profile == "nanning"


def test_match_play_random_checks_its_count_first():
    m = Match(1)
    before = m._m.state()
    with pytest.raises(E.InvalidArgument, match="hands"):
        m.play_random(hands=2**64 - 1)
    assert m._m.state() == before and m.game.phase == "declare"


# ----------------------------------------------------------------------------------------------
# one kind of bad value, one class and one message, from every entry point


def _reason(f) -> str:
    with pytest.raises(E.TractorError) as e:
        f()
    return str(e.value)


def _env(module: str):
    """An adapter module of tractor.envs (its case is skipped where its library is missing)."""
    library = {"gym": "gymnasium", "pettingzoo": "pettingzoo", "openspiel": "pyspiel"}[module]
    pytest.importorskip(library)
    import importlib

    return importlib.import_module(f"tractor.envs.{module}")


def _game() -> Game:
    return Game(5)


def _results():
    return tractor.simulate(hands=2, threads=1)


PROFILE_CALLS = {
    "simulate(hands)": lambda p: tractor.simulate(hands=1, profile=p),
    "simulate(matches)": lambda p: tractor.simulate(matches=1, profile=p),
    "Game": lambda p: Game(0, p),
    "Game.deal": lambda p: Game.deal(1, profile=p),
    "Game.from_deal": lambda p: Game.from_deal(["As", "Ks", "Qs", "Js"], profile=p),
    "Match": lambda p: Match(0, p),
    "Context": lambda p: Context(10, "h", p),
    "outcome": lambda p: tractor.outcome(100, p),
    "VecEnv": lambda p: tractor.VecEnv(1, profile=p),
    "envs.gym": lambda p: _env("gym").TractorEnv(profile=p),
    "envs.pettingzoo": lambda p: _env("pettingzoo").raw_env(profile=p),
    "envs.openspiel": lambda p: _env("openspiel").TractorGame({"profile": p}),
}


@pytest.mark.parametrize("entry,profile", [
    pytest.param(entry, profile, id=f"{profile!r}-{entry}")
    for profile in ["x", "beijing", "", 3, None, "nan\udcffning"]
    for entry in PROFILE_CALLS
    if isinstance(profile, str) or entry != "envs.openspiel"  # OpenSpiel's game parameters are text
])
def test_a_bad_profile_is_an_invalid_context_everywhere(entry, profile):
    want = _reason(lambda: Context(10, "h", profile))  # the rules API's answer
    with pytest.raises(E.InvalidContext) as e:
        PROFILE_CALLS[entry](profile)
    assert type(e.value) is E.InvalidContext and str(e.value) == want
    assert isinstance(e.value, E.InvalidArgument)  # what simulate raised for it before


# (entry point, how it names the bad policy, the call)
POLICY_CALLS = [
    ("simulate", "policies[0]", lambda p: tractor.simulate(hands=1, policies=(p,) + ("random",) * 3)),
    ("simulate(text)", "policies[2]",
     lambda p: tractor.simulate(hands=1, policies=f"random,random,{p},random")),
    ("simulate(matches)", "policies[3]",
     lambda p: tractor.simulate(matches=1, policies=("random",) * 3 + (p,))),
    # three opponents are numbered as the user wrote them: the first is opponents[0]
    ("VecEnv", "opponents[0]", lambda p: tractor.VecEnv(1, opponents=(p, "random", "random"))),
    ("VecEnv(4)", "opponents[3]", lambda p: tractor.VecEnv(1, opponents=(None, "random", None, p))),
    ("Game.step_policy", "policy", lambda p: _game().step_policy(p, 0)),
    ("envs.gym", "opponents[0]", lambda p: _env("gym").TractorEnv(opponents=(p, "random", "random"))),
    ("VecEnv(teacher)", "teacher", lambda p: tractor.VecEnv(1, teacher=p)),
    ("Game.policy_ids", "policy", lambda p: _game().policy_ids(p, 0)),
]


@pytest.mark.parametrize("entry,what,call", POLICY_CALLS, ids=[c[0] for c in POLICY_CALLS])
@pytest.mark.parametrize("policy", ["x", "pimc:worlds=0", "ismcts:depth=3", "greedy:x=1"])
def test_a_bad_policy_is_an_invalid_policy_everywhere(entry, what, call, policy):
    reason = _reason(lambda: tractor._core.policy_name(policy))  # the core's parser, once
    with pytest.raises(E.InvalidPolicy) as e:
        call(policy)
    assert type(e.value) is E.InvalidPolicy and str(e.value) == f"{what}: {reason}"


@pytest.mark.parametrize("entry,what,call,policy", [
    pytest.param(entry, what, call, policy, id=f"{policy!r}-{entry}")
    for policy in [3, None, "\udc80"]
    for entry, what, call in POLICY_CALLS
    # a text of policies is text; None among the opponents is the learner's seat, None as
    # the teacher no teacher
    if entry != "simulate(text)" and not (policy is None and ("opponents" in what or what == "teacher"))
])
def test_a_policy_that_is_no_text_is_an_invalid_policy_everywhere(entry, what, call, policy):
    with pytest.raises(E.InvalidPolicy) as e:
        call(policy)
    assert type(e.value) is E.InvalidPolicy and str(e.value) == _reason(lambda: tractor.simulate(
        hands=1, policies=(policy,) * 4)).replace("policies[0]", what, 1)


ROLLOUT_CALLS = [
    ("Game.playout", "policy", lambda p: _game().playout(p)),
    ("Game.playout_score", "policy", lambda p: _game().playout_score(p)),
    ("search.rollouts", "policy", lambda p: tractor.search.rollouts(_game(), 1, policy=p)),
    ("search.pimc", "policy", lambda p: tractor.search.pimc(_game(), policy=p)),
    ("search.ismcts", "rollout", lambda p: tractor.search.ismcts(_game(), rollout=p)),
]


@pytest.mark.parametrize("entry,what,call", ROLLOUT_CALLS, ids=[c[0] for c in ROLLOUT_CALLS])
@pytest.mark.parametrize("policy", ["x", "pimc", 3, None], ids=repr)
def test_a_bad_rollout_policy_is_an_invalid_policy_everywhere(entry, what, call, policy):
    with pytest.raises(E.InvalidPolicy) as e:
        call(policy)
    shown = repr(policy)
    # the core's agents ('random' and 'greedy' first), the shipped learned agents, any tuned
    # greedy, any network
    agents = [repr(a) for a in tractor._core.AGENTS]
    assert agents[:2] == ["'random'", "'greedy'"]
    agents += [repr(a.name) for a in tractor.agents.AGENTS.values() if a.kind == "learned"]
    agents += ["'greedy:NAME=V/...'", "'net:PATH'"]
    listed = ", ".join(agents[:-1]) + " or " + agents[-1]
    assert str(e.value) == f"{what}: a rollout policy is {listed}, got {shown}"
    assert type(e.value) is E.InvalidPolicy


@pytest.mark.parametrize("call", [
    lambda: tractor.search.pimc(_game(), worlds=-1), lambda: tractor.search.pimc(_game(), rollouts=1.5),
    lambda: tractor.search.ismcts(_game(), iterations=True), lambda: tractor.search.ismcts(_game(), trees=-2),
    lambda: tractor.search.ismcts(_game(), c=-1), lambda: tractor.search.ismcts(_game(), c=0.12345),
], ids=["worlds", "rollouts", "iterations", "trees", "c", "c-decimals"])
def test_a_bad_search_parameter_is_an_invalid_policy(call):
    with pytest.raises(E.InvalidPolicy) as e:
        call()
    assert type(e.value) is E.InvalidPolicy


U64_MAX = 2**64 - 1

# (entry point, the argument's name in the message, the call with the bad value)
SEED_CALLS = [
    ("simulate", "seed", lambda v: tractor.simulate(hands=1, seed=v)),
    ("Game", "seed", lambda v: Game(v)),
    ("Game.deal", "hand_seed", lambda v: Game.deal(v)),
    ("Match", "seed", lambda v: Match(v)),
    ("Match.play_random", "seed", lambda v: Match(0).play_random(hands=1, seed=v)),
    ("Context.random_follow", "seed", lambda v: G.random_follow("As Ks", "4s", v)),
    ("Game.step_random", "seed", lambda v: _game().step_random(v)),
    ("Game.play_random", "seed", lambda v: _game().play_random(v)),
    ("Game.determinize", "seed", lambda v: _game().determinize(0, v)),
    ("Game.determinize_many", "seed", lambda v: _game().determinize_many(0, 1, v)),
    ("Game.playout", "seed", lambda v: _game().playout("random", v)),
    ("Game.playout_score", "seed", lambda v: _game().playout_score("random", v)),
    ("Game.step_policy", "seed", lambda v: _game().step_policy("random", v)),
    ("VecEnv", "seed", lambda v: tractor.VecEnv(1, seed=v)),
    ("search.rollouts", "seed", lambda v: tractor.search.rollouts(_game(), 1, seed=v)),
    ("search.pimc", "seed", lambda v: tractor.search.pimc(_game(), seed=v)),
    ("search.ismcts", "seed", lambda v: tractor.search.ismcts(_game(), seed=v)),
    ("envs.gym", "seed", lambda v: _env("gym").TractorEnv(seed=v)),
    ("envs.pettingzoo", "seed", lambda v: _env("pettingzoo").raw_env().reset(seed=v)),
]


@pytest.mark.parametrize("entry,what,call", SEED_CALLS, ids=[c[0] for c in SEED_CALLS])
@pytest.mark.parametrize("seed,message", [
    (-1, "{} -1 is out of range: it must be in 0..%d" % U64_MAX),
    (2**64, "{} %d is out of range: it must be in 0..%d" % (2**64, U64_MAX)),
    (1.0, "{} must be an int, got float 1.0"),
    (True, "{} must be an int, got True"),
], ids=["-1", "2**64", "1.0", "True"])
def test_a_bad_seed_is_an_invalid_argument_everywhere(entry, what, call, seed, message):
    with pytest.raises(E.InvalidArgument) as e:
        call(seed)
    assert type(e.value) is E.InvalidArgument and str(e.value) == message.format(what)


COUNT_CALLS = [
    ("simulate(hands)", "hands", lambda v: tractor.simulate(hands=v)),
    ("simulate(matches)", "matches", lambda v: tractor.simulate(matches=v)),
    ("Match.play_random", "hands (at most 1,000,000 per call; bulk runs: tractor.simulate)",
     lambda v: Match(0).play_random(hands=v)),
    ("Game.determinize_many", "n (at most 100,000 worlds: each is a whole Game)",
     lambda v: _game().determinize_many(0, v, 0)),
    ("search.rollouts", "n (at most 10,000,000 playouts per call: 16 bytes each)",
     lambda v: tractor.search.rollouts(_game(), v)),
    ("Context.legal_follows", "limit", lambda v: G.legal_follows("As Ks", "4s", limit=v)),
    ("Context.nth_legal_follow", "index", lambda v: G.nth_legal_follow("As Ks", "4s", v)),
]


@pytest.mark.parametrize("entry,what,call", COUNT_CALLS, ids=[c[0] for c in COUNT_CALLS])
@pytest.mark.parametrize("count", [-1, 2.0, True, "3"], ids=repr)
def test_a_bad_count_is_an_invalid_argument_everywhere(entry, what, call, count):
    with pytest.raises(E.InvalidArgument) as e:
        call(count)
    assert type(e.value) is E.InvalidArgument
    if count == -1:
        assert str(e.value).startswith(f"{what} -1 is out of range: it must be in 0..")
    else:
        assert str(e.value) == f"{what} must be an int, got " + ("True" if count is True else
                                                                 f"{type(count).__name__} {count!r}")


FLAG_CALLS = [
    ("simulate", "duplicate", lambda v: tractor.simulate(hands=1, duplicate=v)),
    ("simulate", "keep_arrays", lambda v: tractor.simulate(hands=1, keep_arrays=v)),
    ("merge", "partial", lambda v: tractor.merge([_results()], partial=v)),
    ("read_records", "replay", lambda v: tractor.read_records("never-opened.rec", replay=v)),
    ("Game.deal", "every_receiver", lambda v: Game.deal(1, every_receiver=v)),
    ("Game.observation_tensor", "canonical_suits",
     lambda v: _game().observation_tensor(0, canonical_suits=v)),
    ("Match.play_random", "until_passed_a", lambda v: Match(0).play_random(hands=1, until_passed_a=v)),
    ("VecEnv", "fast_deal", lambda v: tractor.VecEnv(1, fast_deal=v)),
    ("VecEnv", "canonical_suits", lambda v: tractor.VecEnv(1, canonical_suits=v)),
    ("actions.encode", "lead", lambda v: tractor.actions.encode(tractor.Pass(), lead=v)),
    ("envs.gym", "fast_deal", lambda v: _env("gym").TractorEnv(fast_deal=v)),
    ("envs.gym", "strict", lambda v: _env("gym").TractorEnv(strict=v)),
    ("envs.gym", "dict_obs", lambda v: _env("gym").TractorEnv(dict_obs=v)),
    ("envs.pettingzoo", "fast_deal", lambda v: _env("pettingzoo").raw_env(fast_deal=v)),
]


@pytest.mark.parametrize("entry,what,call", FLAG_CALLS, ids=[f"{c[0]}:{c[1]}" for c in FLAG_CALLS])
@pytest.mark.parametrize("flag", [1, "yes", None], ids=repr)
def test_a_bad_flag_is_an_invalid_argument_everywhere(entry, what, call, flag):
    with pytest.raises(E.InvalidArgument) as e:
        call(flag)
    assert type(e.value) is E.InvalidArgument
    assert str(e.value) == f"{what} must be True or False, got {flag!r}"


@pytest.mark.parametrize("call", [lambda: tractor.VecEnv(1, fast_deal=np.bool_(True)),
                                  lambda: tractor.actions.encode(tractor.Pass(), lead=np.bool_(False)),
                                  lambda: tractor.merge([_results()], partial=np.bool_(False))],
                         ids=["VecEnv", "actions.encode", "merge"])
def test_numpy_bools_are_flags_everywhere(call):
    call()


THREAD_CALLS = [
    ("simulate", lambda v: tractor.simulate(hands=1, threads=v)),
    ("VecEnv", lambda v: tractor.VecEnv(1, threads=v)),
    ("search.rollouts", lambda v: tractor.search.rollouts(_game(), 1, threads=v)),
    ("search.pimc", lambda v: tractor.search.pimc(_game(), threads=v)),
    ("search.ismcts", lambda v: tractor.search.ismcts(_game(), threads=v)),
]


@pytest.mark.parametrize("entry,call", THREAD_CALLS, ids=[c[0] for c in THREAD_CALLS])
@pytest.mark.parametrize("threads", [0, 1025, 2.0], ids=repr)
def test_bad_threads_are_an_invalid_argument_everywhere(entry, call, threads):
    with pytest.raises(E.InvalidArgument) as e:
        call(threads)
    assert type(e.value) is E.InvalidArgument
    what = "threads (None: all cores)"
    assert str(e.value) == (f"{what} must be an int, got float 2.0" if isinstance(threads, float)
                            else f"{what} {threads} is out of range: it must be in 1..1024")


SEAT_CALLS = [
    ("Game.hand", "seat", lambda v: _game().hand(v)),
    ("Game.observation", "seat", lambda v: _game().observation(v)),
    ("Game.observation_tensor", "seat", lambda v: _game().observation_tensor(v)),
    ("Game.info", "seat", lambda v: _game().info(v)),
    ("Game.known_trump", "seat", lambda v: _game().known_trump(v)),
    ("Game.determinize", "seat", lambda v: _game().determinize(v, 0)),
    ("Game.determinize_many", "seat", lambda v: _game().determinize_many(v, 1, 0)),
    ("Game.deal", "banker", lambda v: Game.deal(1, banker=v)),
    ("Game.from_deal", "banker", lambda v: Game.from_deal(["As", "Ks", "Qs", "Js"], banker=v)),
    ("envs.gym", "seat", lambda v: _env("gym").TractorEnv(seat=v)),
]


@pytest.mark.parametrize("entry,what,call", SEAT_CALLS, ids=[c[0] for c in SEAT_CALLS])
@pytest.mark.parametrize("seat", [4, -1, 1.0], ids=repr)
def test_a_bad_seat_is_an_invalid_seat_everywhere(entry, what, call, seat):
    with pytest.raises(E.InvalidSeat) as e:
        call(seat)
    assert type(e.value) is E.InvalidSeat
    assert str(e.value) == (f"{what} must be an int, got float 1.0" if isinstance(seat, float)
                            else f"{what} {seat} is out of range: it must be in 0..3")


HUGE_CARDS = [[tractor.Card("Kh"), 2**63], [tractor.Card("Kh"), 2**70], [2**63, tractor.Card("Kh")], [tractor.Card("Kh"), -(2**70)]]
CARD_ENTRIES = {
    "to_counts": lambda c: tractor.to_counts(c),
    "format": lambda c: tractor.format(c),
    "Context.legal_leads": lambda c: tractor.Context(level=2, trump="s").legal_leads(c),
    "Context.classify": lambda c: tractor.Context(level=2, trump="s").classify(c),
    "Context.trick_winner": lambda c: tractor.Context(level=2, trump="s").trick_winner(["Kh", c, "Kh", "Kh"]),
    "Context.is_legal_follow": lambda c: tractor.Context(level=2, trump="s").is_legal_follow(c, "Kh", "Kh"),
    "Context.follow_requirement": lambda c: tractor.Context(level=2, trump="s").follow_requirement("Kh Qh", c),
    "Context.count_legal_follows": lambda c: tractor.Context(level=2, trump="s").count_legal_follows(c, "Kh"),
    "Context.random_follow": lambda c: tractor.Context(level=2, trump="s").random_follow(c, "Kh", seed=1),
    "Context.follow_completions": lambda c: tractor.Context(level=2, trump="s").follow_completions("Kh Qh", "Kh", c),
    "Game.apply": lambda c: tractor.Game(seed=1).apply(c),
    "actions.encode": lambda c: tractor.actions.encode(c),
    "Game.from_deal": lambda c: tractor.Game.from_deal([c, "Kh", "Kh", "Kh"]),
}


@pytest.mark.parametrize("cards", HUGE_CARDS, ids=["2**63", "2**70", "2**63-first", "-2**70"])
@pytest.mark.parametrize("entry", list(CARD_ENTRIES))
def test_a_huge_integer_in_a_card_list_is_a_tractor_error_everywhere(entry, cards):
    """A card list with an int past 64 bits (or past i64) raises the entry's TractorError,
    never OverflowError."""
    with pytest.raises(E.TractorError):
        CARD_ENTRIES[entry](cards)


def test_crafted_pickle_states_are_tractor_errors():
    """The reconstructors pickle calls (Game, Match) refuse a crafted state with a
    TractorError, never TypeError or OverflowError; a true state still round-trips."""
    import pickle

    from tractor.game import _match_from_state, _restore

    g = tractor.Game(seed=1)
    m = tractor.Match(seed=1)
    _, (seed, state, text) = m.__reduce__()
    assert pickle.loads(pickle.dumps(m)).levels == m.levels and pickle.loads(pickle.dumps(g)) == g
    crafted = [
        lambda: _restore(g.to_json(), [2**70]), lambda: _restore(g.to_json(), ["x"]), lambda: _restore(123, []),
        lambda: _restore(g.to_json(), None), lambda: _restore(g.to_json(), 5),
        lambda: _match_from_state(2**70, state, text), lambda: _match_from_state("s", state, text),
        lambda: _match_from_state(seed, (2**70,) + tuple(state[1:]), text),
        lambda: _match_from_state(seed, "x", text), lambda: _match_from_state(seed, None, None),
        lambda: _match_from_state(seed, state, 5), lambda: _match_from_state(seed, state[:3], text),
        lambda: _match_from_state(seed, (seed, "guigang", (300, 3)) + tuple(state[3:]), text),
        lambda: _match_from_state(seed, (seed, "guigang", (3, 3), 2**64) + tuple(state[4:]), text),
    ]
    for i, f in enumerate(crafted):
        with pytest.raises(E.TractorError):
            f()
