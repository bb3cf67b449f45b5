"""Property-based tests (Hypothesis) of the simulation entry points against random, half-valid
and adversarial input: ``simulate``, ``merge``, ``load``, ``read_records`` and the CLI's
argument parsing. Each call either answers correctly or raises a TractorError (a ValueError),
and a rejected call changes nothing (no file created, no input mutated)."""

from __future__ import annotations

import contextlib
import copy
import io
import os
import tempfile

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import tractor  # noqa: E402
from tractor.cli import main  # noqa: E402
from tractor.errors import TractorError  # noqa: E402
from tractor.sim import MatchResults, SimResults  # noqa: E402

SCALE = float(os.environ.get("TRACTOR_HYPOTHESIS_SCALE", "1"))  # e.g. 20 for a long soak


def examples(n: int) -> settings:
    return settings(max_examples=int(n * SCALE), deadline=None, suppress_health_check=list(HealthCheck))


FAST = examples(60)
POLICIES = "greedy,random,greedy,random"
U64 = 2**64

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_DTYPES = [np.float16, np.float32, np.float64]


def junk():
    """Values of the wrong kind: floats (NaN, inf), bools, strings, containers, None, objects."""
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from([float("nan"), float("inf"), -float("inf"), True, False, np.bool_(True), None, "",
                         "3", "\udc80", b"3", [], [3], (3,), {}, object(), 3 + 0j, np.array([1, 2]),
                         np.float64(3.0)]),
        st.text(max_size=8),
        st.sampled_from(FLOAT_DTYPES).flatmap(lambda t: st.floats(width=16).map(t)),
    )


def ints(lo: int, hi: int):
    """Ints of any size, and numpy integers of every dtype that can hold them."""
    plain = st.one_of(st.integers(lo, hi), st.integers(), st.sampled_from([-1, 0, 2**63, U64 - 1, U64, 2**200]))
    numpyish = st.sampled_from(INT_DTYPES).flatmap(
        lambda t: st.integers(int(np.iinfo(t).min), int(np.iinfo(t).max)).map(t))
    return st.one_of(plain, numpyish)


def small_count():
    """Counts that are cheap when valid: small ones, invalid ones (never a valid huge one)."""
    return st.one_of(st.integers(0, 4), st.integers(max_value=-1), st.integers(min_value=U64),
                     st.sampled_from(INT_DTYPES).map(lambda t: t(3)), junk())


def valid_int(x, lo, hi) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, (int, np.integer)):
        return lo <= int(x) <= hi
    return False


@contextlib.contextmanager
def in_temp_dir():
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        try:
            yield d
        finally:
            os.chdir(old)


@FAST
@given(
    hands=small_count(),
    seed=st.one_of(ints(0, U64 - 1), junk()),
    start=st.one_of(ints(0, U64 - 1), junk()),
    threads=st.one_of(st.none(), st.integers(1, 3), st.integers(max_value=0), st.integers(min_value=1025), junk()),
    chunk=st.one_of(st.none(), st.integers(1, 3), ints(-3, 3), junk()),
    policies=st.one_of(st.just(POLICIES), st.lists(st.sampled_from(["greedy", "random", "GREEDY", "x", 3]), max_size=5),
                       junk()),
    profile=st.one_of(st.sampled_from(["guigang", "nanning", "NANNING", "beijing", "\udc80"]), junk()),
    duplicate=st.one_of(st.booleans(), junk()),
    keep=st.one_of(st.booleans(), junk()),
    records=st.booleans(),
)
def test_simulate_answers_or_refuses_cleanly(hands, seed, start, threads, chunk, policies, profile, duplicate, keep,
                                             records):
    with in_temp_dir() as d:
        kw = dict(hands=hands, seed=seed, start=start, threads=threads, chunk=chunk, policies=policies,
                  profile=profile, duplicate=duplicate, keep_arrays=keep)
        if records:
            kw["records"] = "r.rec"
        try:
            r = tractor.simulate(**kw)
        except TractorError:
            assert os.listdir(d) == [], "a refused call creates no file"
            return
        # accepted: every argument was valid, and the answer is the run asked for
        n = int(hands)
        assert valid_int(hands, 0, U64) and valid_int(seed, 0, U64 - 1) and valid_int(start, 0, U64 - 1)
        assert int(start) + n <= U64
        assert r.summary()["hands"] == n and r.requested == ([(int(start), int(start) + n)] if n else [])
        assert r.run_seed == int(seed) and r.profile in ("guigang", "nanning")
        if records:
            assert sum(1 for _ in tractor.read_records("r.rec", replay=False)) == n
        str(r)


@FAST
@given(kw=st.dictionaries(
    st.sampled_from(["matches", "max_hands", "seed", "threads", "start", "chunk", "duplicate", "records",
                     "keep_arrays", "backend", "address", "progress"]),
    st.one_of(small_count(), junk(), st.sampled_from(["local", "ray", "x.rec", print])), max_size=5))
def test_match_runs_answer_or_refuse_cleanly(kw):
    kw = {"matches": 1, **kw}
    if isinstance(kw.get("backend"), str) and kw["backend"] == "ray":
        kw["backend"] = "local"  # Ray is tried in its own tests
    if "max_hands" in kw and valid_int(kw["max_hands"], 1, 2**32 - 1):
        kw["max_hands"] = min(int(kw["max_hands"]), 3)
    with in_temp_dir() as d:
        try:
            m = tractor.simulate(**kw)
        except TractorError:
            assert os.listdir(d) == []
            return
        assert isinstance(m, MatchResults) and len(m) == int(kw["matches"])


@pytest.fixture(scope="module")
def shards():
    parts = [tractor.simulate(hands=6, start=a, seed=1, threads=1) for a in (0, 6, 12, 18)]
    flat = [tractor.simulate(hands=6, start=a, seed=1, threads=1, keep_arrays=False) for a in (0, 6, 12, 18)]
    other = [tractor.simulate(hands=6, start=6, seed=2, threads=1), tractor.simulate(matches=1, seed=1, threads=1),
             tractor.simulate(hands=6, start=6, seed=1, threads=1, duplicate=True),
             tractor.simulate(hands=4, start=4, seed=1, threads=1)]
    return parts, flat, other


@examples(150)
@given(data=st.data())
def test_merge_takes_exactly_the_complete_runs(shards, data):
    parts, flat, other = shards
    pool = parts + flat + other + [None, 3, "x", {}]
    chosen = data.draw(st.lists(st.sampled_from(range(len(pool))), max_size=6))
    partial = data.draw(st.one_of(st.booleans(), st.sampled_from([None, 1, "yes"])))
    items = [pool[i] for i in chosen]
    as_tuple = data.draw(st.booleans())
    before = copy.deepcopy([p for p in items if isinstance(p, (SimResults, MatchResults))])
    try:
        m = tractor.merge(tuple(items) if as_tuple else items, partial=partial)
    except TractorError:
        pass
    else:
        assert partial in (True, False) and items
        ranges = sorted(r for p in items for r in p.ranges)
        for (a, b), (c, d) in zip(ranges, ranges[1:]):
            assert c >= b, "overlaps are never merged"
        held = sum(b - a for a, b in ranges)
        assert m.summary().get("hands", m.summary().get("matches")) == held
        if not partial:
            assert held == 0 or m.ranges == [(ranges[0][0], ranges[-1][1])], "complete: one range, no gap"
    after = [p for p in items if isinstance(p, (SimResults, MatchResults))]
    for a, b in zip(after, before):
        for k in b.arrays:
            assert np.array_equal(a.arrays[k], b.arrays[k])
        assert a.interrupted == b.interrupted and a.requested == b.requested


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("prop")
    r = tractor.simulate(hands=5, seed=4, threads=1, duplicate=True, records=str(d / "r.rec"))
    r.to_npz(str(d / "r.npz"))
    return r, (d / "r.npz").read_bytes(), (d / "r.rec").read_bytes()


def mutate(data: bytes, draw) -> bytes:
    kind = draw(st.sampled_from(["flip", "cut", "splice", "zero"]))
    if not data:
        return data
    if kind == "cut":
        return data[: draw(st.integers(0, len(data) - 1))]
    if kind == "zero":
        i = draw(st.integers(0, len(data) - 1))
        n = draw(st.integers(1, 64))
        return data[:i] + bytes(min(n, len(data) - i)) + data[i + n:]
    if kind == "splice":
        i = draw(st.integers(0, len(data)))
        return data[:i] + draw(st.binary(min_size=1, max_size=32)) + data[i:]
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        out[draw(st.integers(0, len(out) - 1))] ^= 1 << draw(st.integers(0, 7))
    return bytes(out)


@examples(120)
@given(data=st.data())
def test_damaged_npz_load_whole_or_raise(files, data):
    r, npz, _ = files
    blob = mutate(npz, data.draw)
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "x.npz")
        with open(p, "wb") as f:
            f.write(blob)
        try:
            back = tractor.load(p)
        except TractorError:
            return
        str(back)  # whatever loads is whole and consistent
        lens = {len(v) for v in back.arrays.values()}
        assert len(lens) == 1


@examples(120)
@given(data=st.data())
def test_damaged_records_yield_a_prefix_then_raise(files, data):
    _, _, rec = files
    want = [x.frame for x in tractor.read_records(_write(rec), replay=False)]
    blob = mutate(rec, data.draw)
    got = []
    replay = data.draw(st.booleans())
    try:
        for x in tractor.read_records(_write(blob), replay=replay, batch=data.draw(st.integers(1, 4))):
            got.append(x.frame if not replay else x.result.score)
    except TractorError as e:
        assert "record" in str(e) or "header" in str(e) or "not a tractor records file" in str(e)
        if not replay:
            assert got == want[: len(got)], "what was read before the fault is the file's own"
        return
    if not replay:
        assert got == want[: len(got)]  # a cut between frames: a shorter, whole file


_WRITTEN = tempfile.TemporaryDirectory(prefix="tractor-prop-")  # removed when the tests end


def _write(blob: bytes) -> str:
    fd, p = tempfile.mkstemp(suffix=".rec", dir=_WRITTEN.name)
    with os.fdopen(fd, "wb") as f:
        f.write(blob)
    return p


CLI_WORDS = ["simulate", "merge", "demo", "--hands", "--matches", "--policy", "--threads", "--seed", "--profile",
             "--shard", "--duplicate", "--max-hands", "--records", "--out", "--plot", "--chunk", "--backend",
             "--address", "--quiet", "-o", "--partial", "--version"]
CLI_VALUES = ["0", "1", "2", "-1", "1e3", "x", "0/2", "1/2", "2/2", "a/b", "greedy,random,greedy,random", "random",
              "guigang", "nanning", "local", "o.npz", "o.txt", "missing/o.npz", "r.rec", "p.png", "p.xyz", "",
              "\udc80", "-18446744073709551616"]


@examples(80)
@given(argv=st.lists(st.sampled_from(CLI_WORDS + CLI_VALUES), max_size=8))
def test_cli_parsing_answers_or_refuses_cleanly(argv):
    # no run may be long: CLI_VALUES holds no large count
    with in_temp_dir(), contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        if argv[:1] not in (["simulate"], ["merge"], ["demo"]) and "--version" not in argv:
            argv = ["simulate", "--hands", "2", "--quiet"] + argv
        elif argv[:1] == ["simulate"] and "--hands" not in argv and "--matches" not in argv:
            argv = argv + ["--hands", "2"]  # not the default 10,000
        try:
            rc = main(argv)
        except SystemExit as e:  # argparse: usage errors (2), --help/--version (0)
            assert e.code in (0, 2), e.code
            return
        assert rc in (0, 1, 2, 130), rc
        assert "Traceback" not in err.getvalue()
