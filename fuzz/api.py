"""Coverage-guided fuzzing (atheris) of the rules, Game and Match API: ``Card``, ``parse``,
``format``, ``to_counts``, every ``Context`` method (the batch ones too), ``outcome``, the
``Game`` constructors and actions, ``LegalPlays``, ``from_json``/``from_record`` on damaged
records, observations, determinization, ``Match``, the searches and the reconstructors of
pickled games and matches (crafted states).

The only exceptions allowed out of a call are TractorErrors; a call that raises one must
leave its game (or match) exactly as it was (its record and whole state compared before and
after). Anything else, a crash or a hang is a finding. Run for an hour with

    pip install atheris
    mkdir -p /tmp/fuzz-api /tmp/fuzz-api-artifacts
    python fuzz/api.py -max_total_time=3600 -rss_limit_mb=4096 -timeout=60 \
        -artifact_prefix=/tmp/fuzz-api-artifacts/ /tmp/fuzz-api

(``python fuzz/api.py FILE`` replays one input). See FUZZING.md for the runs and findings.
"""

from __future__ import annotations

import json
import sys

import atheris

import numpy as np

with atheris.instrument_imports(include=["tractor"]):
    import tractor
    from tractor import Context, Declare, Game, Match, Pass, Play
    from tractor import search as S
    from tractor.errors import TractorError

GAMES: list = []  # games in every phase: dealing, leading, following, over, given hands
RECORDS: list = []  # JSON records to damage
CTXS = [Context(10, "h"), Context(3, "s", "nanning"), Context(14, "c")]
INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
FLOAT_DTYPES = [np.float16, np.float32, np.float64]
TOKENS = ["As", "Ks", "Qs", "10h", "Th", "2d", "3c", "SJ", "BJ", "5s", "9h", "Jh", "♠A", "x", "", " ", "11s", "1s",
          "\ud800", "pass", "PASS", "10", ","]


def _setup() -> None:
    for seed in range(6):
        g = Game(seed)
        GAMES.append(g.clone())
        for k in range(60 * seed):
            if not g.step_random(k):
                break
        GAMES.append(g.clone())
        g.play_random(seed)
        GAMES.append(g)
        RECORDS.append(g.to_json())
    hands = ["As As Ks Ks 3h", "Qs Qs Js 4d 5d", "10s 9s 9s 8c 2h", "7s 7s 6s 6s SJ"]
    fd = Game.from_deal(hands, 10, "h", 1)
    GAMES.append(fd.clone())
    fd.apply(fd.legal_actions()[0])
    GAMES.append(fd)
    RECORDS.append(fd.to_json())


def _int(fdp) -> int:
    k = fdp.ConsumeIntInRange(0, 3)
    if k == 0:
        return fdp.ConsumeIntInRange(-2, 60)
    if k == 1:
        return [2**63, 2**64, 2**64 - 1, -1, 2**32, 2**128, -(2**63), 255, 256][fdp.ConsumeIntInRange(0, 8)]
    return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 20))


def _value(fdp) -> object:
    """An argument: ints of any size, numpy scalars of every dtype, floats (NaN, inf), bools,
    strings (lone surrogates), bytes, lists, arrays of odd shapes, None."""
    k = fdp.ConsumeIntInRange(0, 15)
    if k <= 2:
        return _int(fdp)
    if k == 3:
        t = INT_DTYPES[fdp.ConsumeIntInRange(0, 7)]
        info = np.iinfo(t)
        return t(fdp.ConsumeIntInRange(int(info.min), int(info.max)))
    if k == 4:
        return FLOAT_DTYPES[fdp.ConsumeIntInRange(0, 2)](fdp.ConsumeFloat())
    if k == 5:
        return [float("inf"), float("nan"), -0.0, 1.5, 3.0, 1e300][fdp.ConsumeIntInRange(0, 5)]
    if k == 6:
        return fdp.ConsumeBool() if fdp.ConsumeBool() else np.bool_(fdp.ConsumeBool())
    if k == 7:
        return _cards_text(fdp)
    if k == 8:
        return fdp.ConsumeUnicode(10)
    if k == 9:
        return _counts(fdp)
    if k == 10:
        return [_value_small(fdp) for _ in range(fdp.ConsumeIntInRange(0, 5))]
    if k == 11:
        shape = [(54,), (2, 54), (53,), (0, 54), (54, 1), (3,), ()][fdp.ConsumeIntInRange(0, 6)]
        dtype = [np.uint8, np.int64, np.float64, np.bool_, object][fdp.ConsumeIntInRange(0, 4)]
        return np.full(shape, fdp.ConsumeIntInRange(-1, 5)).astype(dtype)
    if k == 12:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 60))
    if k == 13:
        return None
    if k == 14:
        return ["guigang", "NANNING", " nanning ", "competition", "random", "greedy", "ismcts:iterations=20",
                "pimc:worlds=2,rollouts=1", "h", "s", "A", "10", "J"][fdp.ConsumeIntInRange(0, 12)]
    return (fdp.ConsumeIntInRange(2, 15), fdp.ConsumeIntInRange(2, 15))


def _value_small(fdp) -> object:
    k = fdp.ConsumeIntInRange(0, 3)
    return [_int(fdp), TOKENS[fdp.ConsumeIntInRange(0, len(TOKENS) - 1)], None, fdp.ConsumeFloat()][k]


def _cards_text(fdp) -> str:
    return " ".join(TOKENS[fdp.ConsumeIntInRange(0, len(TOKENS) - 1)] for _ in range(fdp.ConsumeIntInRange(0, 7)))


def _counts(fdp) -> list:
    c = [0] * 54
    for _ in range(fdp.ConsumeIntInRange(0, 8)):
        c[fdp.ConsumeIntInRange(0, 53)] += fdp.ConsumeIntInRange(0, 3)
    return c


def _cards(fdp) -> object:
    """Mostly cards (text, counts, a Play), sometimes anything."""
    k = fdp.ConsumeIntInRange(0, 4)
    if k == 0:
        return _cards_text(fdp)
    if k == 1:
        return _counts(fdp)
    if k == 2:
        return [tractor.Card(fdp.ConsumeIntInRange(0, 53)) for _ in range(fdp.ConsumeIntInRange(0, 6))]
    return _value(fdp)


def _state(g: Game):
    return (g.to_json(), g._g.clone())


def _unchanged(g: Game, before) -> None:
    after = _state(g)
    if after[0] != before[0] or not (after[1] == before[1]):
        raise AssertionError("a refused call changed the game")


def rules(fdp) -> None:
    ctx = CTXS[fdp.ConsumeIntInRange(0, len(CTXS) - 1)]
    f = fdp.ConsumeIntInRange(0, 22)
    a, b, c = _cards(fdp), _cards(fdp), _cards(fdp)
    if f == 0:
        tractor.Card(_value(fdp))
    elif f == 1:
        tractor.parse(_value(fdp) if fdp.ConsumeBool() else _cards_text(fdp))
    elif f == 2:
        text = tractor.format(a)
        assert tractor.format(tractor.parse(text)) == text
    elif f == 3:
        tractor.to_counts(a, "x")
    elif f == 4:
        Context(_value(fdp), _value(fdp), _value(fdp))
    elif f == 5:
        tractor.outcome(_value(fdp), _value(fdp) if fdp.ConsumeBool() else "guigang")
    elif f == 6:
        ctx.classify(a)
    elif f == 7:
        ctx.legal_leads(a)
    elif f == 8:
        ctx.trick_winner([a, b, c][: fdp.ConsumeIntInRange(0, 3)] if fdp.ConsumeBool() else _value(fdp))
    elif f == 9:
        legal = ctx.is_legal_follow(a, b, c)
        err = ctx.follow_error(a, b, c)
        assert (err is None) == legal
    elif f == 10:
        ctx.check_follow(a, b, c)
    elif f == 11:
        ctx.follow_requirement(a, b)
    elif f == 12:
        ctx.legal_follows(a, b, _value(fdp) if fdp.ConsumeBool() else 1000)
    elif f == 13:
        ctx.count_legal_follows(a, b)
    elif f == 14:
        ctx.nth_legal_follow(a, b, _value(fdp))
    elif f == 15:
        ctx.random_follow(a, b, _value(fdp))
    elif f == 16:
        ctx.follow_completions(a, b, c)
    elif f == 17:
        ctx.classify_batch(_value(fdp))
    elif f == 18:
        ctx.is_legal_follow_batch(_value(fdp), b, c)
    elif f == 19:
        ctx.is_trump(_value(fdp))
    elif f == 20:
        tractor.to_counts(_value(fdp))
    else:
        tractor.format(_value(fdp))


def constructors(fdp) -> None:
    f = fdp.ConsumeIntInRange(0, 5)
    if f == 0:
        Game(_value(fdp), _value(fdp) if fdp.ConsumeBool() else "guigang")
    elif f == 1:
        keys = ["hand_seed", "levels", "banker", "profile", "deck", "first_seat", "redeal_decks", "hand_index"]
        kw = {"hand_seed": 1}
        for _ in range(fdp.ConsumeIntInRange(0, 3)):
            kw[keys[fdp.ConsumeIntInRange(0, len(keys) - 1)]] = _value(fdp)
        Game.deal(**kw)
    elif f == 2:
        hands = [_cards(fdp) for _ in range(fdp.ConsumeIntInRange(3, 5))]
        Game.from_deal(hands if fdp.ConsumeBool() else _value(fdp), _value(fdp), _value(fdp), _value(fdp))
    elif f == 3:
        Match(_value(fdp), _value(fdp) if fdp.ConsumeBool() else "guigang")
    elif f == 4:  # a damaged record
        text = RECORDS[fdp.ConsumeIntInRange(0, len(RECORDS) - 1)]
        raw = fdp.ConsumeBytes(6)
        b = bytearray(text.encode())
        for i in range(0, len(raw) - 1, 2):
            at = raw[i] * len(b) // 256
            b[at] = raw[i + 1] if raw[i + 1] >= 32 else b[at]
        try:
            s = b.decode()
        except UnicodeDecodeError:
            s = b.decode("latin-1")
        g = Game.from_json(s)
        assert Game.from_json(g.to_json()) == g
    else:  # a record with one field replaced
        rec = json.loads(RECORDS[fdp.ConsumeIntInRange(0, len(RECORDS) - 1)])
        where = [rec, rec["start"], rec["actions"][fdp.ConsumeIntInRange(0, len(rec["actions"]) - 1)]]
        d = where[fdp.ConsumeIntInRange(0, 2)]
        if isinstance(d, dict):
            keys = list(d) + ["extra"]
            d[keys[fdp.ConsumeIntInRange(0, len(keys) - 1)]] = _value(fdp)
        else:
            d[fdp.ConsumeIntInRange(0, len(d) - 1)] = _value(fdp)
        Game.from_record(rec)


def actions(fdp) -> None:
    g = GAMES[fdp.ConsumeIntInRange(0, len(GAMES) - 1)].clone()
    before = _state(g)
    f = fdp.ConsumeIntInRange(0, 17)
    try:
        if f == 0:
            g.apply(_cards(fdp))
        elif f == 1:
            g.apply(Declare(_value(fdp) if fdp.ConsumeBool() else "shdc"[fdp.ConsumeIntInRange(0, 3)], _value(fdp)))
        elif f == 2:
            g.apply(Pass() if fdp.ConsumeBool() else Play(_value(fdp)))
        elif f == 3:
            la = g.legal_actions()
            if not isinstance(la, list):
                la[_value(fdp)]
            elif la:
                g.apply(la[fdp.ConsumeIntInRange(0, len(la) - 1)])
                return
        elif f == 4:
            la = g.legal_actions()
            if not isinstance(la, list):
                inside = _cards(fdp) in la
                assert isinstance(inside, bool)
                la.sample(_value(fdp))
        elif f == 5:
            g.step_random(_value(fdp))
            return
        elif f == 6:
            g.hand(_value(fdp))
        elif f == 7:
            g.observation(_value(fdp))
        elif f == 8:
            g.info(_value(fdp))
        elif f == 9:
            g.determinize(_value(fdp), _value(fdp))
        elif f == 10:
            n = _value(fdp)
            if isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) and 3 < int(n) <= 10**5:
                n = 3  # valid but large: slow, not a finding
            g.determinize_many(_value(fdp) if fdp.ConsumeBool() else 0, n, 0)
        elif f == 11:
            g.playout(_value(fdp), _value(fdp))
        elif f == 12:
            p = _value(fdp)
            if isinstance(p, str) and ("ismcts" in p or "pimc" in p) and g.phase != "play":
                p = "greedy"
            g.step_policy(p, _value(fdp))
            return
        elif f == 13:
            n = _value(fdp)
            if isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) and 3 < int(n) <= 10**7:
                n = 3
            S.rollouts(g, n, _value(fdp), _value(fdp), _value(fdp) if fdp.ConsumeBool() else 1)
        elif f == 14:
            tractor.playthrough(g if fdp.ConsumeBool() else _value(fdp))
        elif f == 15:  # an action id (a card of the play being built, 54 to lead, pass, showings)
            g.step(fdp.ConsumeIntInRange(0, 71) if fdp.ConsumeBool() else _value(fdp))
        elif f == 16:
            mask = g.action_mask()
            assert mask.shape == (72,) and (mask.any() or g.phase == "over")
            out = None if fdp.ConsumeBool() else (np.empty(tractor.actions.OBS_DIM, np.float32) if fdp.ConsumeBool() else _value(fdp))
            g.observation_tensor(_value(fdp) if fdp.ConsumeBool() else 0, out=out, canonical_suits=fdp.ConsumeBool())
        else:
            ids = [fdp.ConsumeIntInRange(0, 71) for _ in range(fdp.ConsumeIntInRange(0, 4))]
            for x in (ids, _value(fdp)):
                try:
                    a = tractor.actions.decode(x)
                    tractor.actions.encode(a, lead=fdp.ConsumeBool())
                except TractorError:
                    pass
            tractor.actions.describe(_value(fdp) if fdp.ConsumeBool() else fdp.ConsumeIntInRange(0, 71))
    except TractorError:
        _unchanged(g, before)
        raise
    if f not in (0, 1, 2, 15):  # an accepted action changes the game; none of the queries does
        _unchanged(g, before)


def matches(fdp) -> None:
    m = Match(fdp.ConsumeIntInRange(0, 3))
    m.play_random(hands=fdp.ConsumeIntInRange(0, 2), seed=1)
    before = (m._m.state(), m.game.to_json())
    f = fdp.ConsumeIntInRange(0, 3)
    try:
        if f == 0:
            m.game = GAMES[fdp.ConsumeIntInRange(0, len(GAMES) - 1)].clone() if fdp.ConsumeBool() else _value(fdp)
            before = (m._m.state(), m.game.to_json())
            m.next_hand()
        elif f == 1:
            h = _value(fdp)
            if isinstance(h, (int, np.integer)) and not isinstance(h, (bool, np.bool_)) and 3 < int(h) <= 10**6:
                h = 3
            m.play_random(hands=h, until_passed_a=_value(fdp) if fdp.ConsumeBool() else False, seed=_value(fdp))
        elif f == 2:
            m.next_hand()
        else:
            m.game.play_random(_value(fdp))
            m.next_hand()
    except TractorError:
        if (m._m.state(), m.game.to_json()) != before:
            raise AssertionError("a refused call changed the match")
        raise


def envs(fdp) -> None:
    from tractor.vec_env import VecEnv

    kw = {}
    keys = ["seed", "profile", "opponents", "threads", "fast_deal", "canonical_suits"]
    for _ in range(fdp.ConsumeIntInRange(0, 2)):
        kw[keys[fdp.ConsumeIntInRange(0, len(keys) - 1)]] = _value(fdp)
    n = _value(fdp) if fdp.ConsumeBool() else fdp.ConsumeIntInRange(1, 3)
    if isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) and 3 < int(n) <= 1 << 20:
        n = 3
    t = kw.get("threads")
    if isinstance(t, (int, np.integer)) and not isinstance(t, (bool, np.bool_)) and 2 < int(t) <= 1024:
        kw["threads"] = 2
    env = VecEnv(n, **kw)
    obs, mask, seat, reward, done = env.reset()
    for _ in range(fdp.ConsumeIntInRange(0, 4)):
        if fdp.ConsumeBool():
            acts = np.array([np.flatnonzero(m)[fdp.ConsumeIntInRange(0, int(m.sum()) - 1)] for m in mask])
        else:
            acts = _value(fdp)
        obs, mask, seat, reward, done = env.step(acts)
    env.game(_value(fdp) if fdp.ConsumeBool() else 0)


def pickles(fdp) -> None:
    """The reconstructors pickle calls, fed crafted states: a TractorError or an object."""
    from tractor.game import _match_from_state, _restore

    g = GAMES[fdp.ConsumeIntInRange(0, len(GAMES) - 1)]
    if fdp.ConsumeBool():
        text = g.to_json() if fdp.ConsumeBool() else _value(fdp)
        pending = [_value(fdp) for _ in range(fdp.ConsumeIntInRange(0, 3))] if fdp.ConsumeBool() else _value(fdp)
        _restore(text, pending)
    else:
        m = Match(fdp.ConsumeIntInRange(0, 3))
        _, (seed, state, text) = m.__reduce__()
        state = list(state)
        for _ in range(fdp.ConsumeIntInRange(0, 3)):
            if state:
                state[fdp.ConsumeIntInRange(0, len(state) - 1)] = _value(fdp)
        shape = fdp.ConsumeIntInRange(0, 2)
        crafted = tuple(state) if shape == 0 else state[: fdp.ConsumeIntInRange(0, len(state))] if shape == 1 else _value(fdp)
        _match_from_state(_value(fdp) if fdp.ConsumeBool() else seed, crafted, text if fdp.ConsumeBool() else _value(fdp))


TARGETS = [rules, rules, constructors, actions, actions, matches, envs, pickles]


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    try:
        TARGETS[fdp.ConsumeIntInRange(0, len(TARGETS) - 1)](fdp)
    except TractorError:
        pass


if __name__ == "__main__":
    _setup()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
