"""Coverage-guided fuzzing (atheris) of the simulation and data-path entry points:
``read_records``, ``load``, ``merge``, ``simulate``'s arguments and the CLI's argument parsing.

The only exceptions allowed out of a call are TractorErrors (and argparse's SystemExit for a
usage error); anything else, a crash or a hang is a finding. Run for an hour with

    pip install atheris
    mkdir -p /tmp/fuzz-sim /tmp/fuzz-sim-artifacts
    python fuzz/sim_io.py -max_total_time=3600 -rss_limit_mb=4096 -timeout=60 \
        -artifact_prefix=/tmp/fuzz-sim-artifacts/ /tmp/fuzz-sim

(``-max_total_time`` in seconds; the corpus folder keeps the inputs found between runs;
crashes and slow inputs go to the artifact folder; ``python fuzz/sim_io.py FILE`` replays one). See FUZZING.md for the runs so far and their findings.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile

import atheris

import numpy as np

with atheris.instrument_imports(include=["tractor"]):
    import tractor
    from tractor.cli import main
    from tractor.errors import TractorError

TMP = tempfile.mkdtemp(prefix="tractor-fuzz-")
RECORDS = os.path.join(TMP, "seed.rec")
NPZ = os.path.join(TMP, "seed.npz")
SHARDS = []


def _setup() -> None:
    r = tractor.simulate(hands=3, seed=1, threads=1, duplicate=True, records=RECORDS)
    r.to_npz(NPZ)
    for a in (0, 3, 6):
        SHARDS.append(tractor.simulate(hands=3, start=a, seed=1, threads=1))
        SHARDS.append(tractor.simulate(hands=3, start=a, seed=1, threads=1, keep_arrays=False))
    SHARDS.append(tractor.simulate(matches=1, seed=1, threads=1))
    SHARDS.append(tractor.simulate(hands=3, start=3, seed=2, threads=1))


def _file(data: bytes, name: str) -> str:
    p = os.path.join(TMP, name)
    with open(p, "wb") as f:
        f.write(data)
    return p


def _value(fdp: "atheris.FuzzedDataProvider") -> object:
    """An argument value: ints of any size, numpy scalars, floats, strings, containers."""
    k = fdp.ConsumeIntInRange(0, 11)
    if k == 0:
        return fdp.ConsumeIntInRange(0, 4)  # small valid counts
    if k == 1:
        return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 20))  # any size, any sign
    if k == 2:
        t = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64][fdp.ConsumeIntInRange(0, 7)]
        info = np.iinfo(t)
        return t(fdp.ConsumeIntInRange(int(info.min), int(info.max)))
    if k == 3:
        return fdp.ConsumeFloat()
    if k == 4:
        return fdp.ConsumeUnicode(12)
    if k == 5:
        return fdp.ConsumeBool()
    if k == 6:
        return None
    if k == 7:
        return [fdp.ConsumeUnicode(8) for _ in range(fdp.ConsumeIntInRange(0, 5))]
    if k == 8:
        return np.float32(fdp.ConsumeFloat())
    if k == 9:
        return fdp.ConsumeBytes(8)
    if k == 10:
        return ["greedy", "random", "GREEDY", " random "][fdp.ConsumeIntInRange(0, 3)]
    return {"a": 1}


def _cheap(kw: dict) -> bool:
    """Only runs that finish at once: at most a few hands, a few threads."""
    for key in ("hands", "matches", "max_hands"):
        v = kw.get(key)
        if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and int(v) > 4:
            kw[key] = int(v) % 5
    t = kw.get("threads")
    if isinstance(t, (int, np.integer)) and not isinstance(t, (bool, np.bool_)) and 4 < int(t) <= 1024:
        kw["threads"] = 2
    if isinstance(kw.get("backend"), str) and kw["backend"] == "ray":
        kw["backend"] = "local"
    return True


ARGS = ["hands", "matches", "policies", "seed", "threads", "profile", "max_hands", "duplicate", "start",
        "records", "chunk", "keep_arrays", "backend", "address"]
WORDS = ["simulate", "merge", "demo", "--hands", "--matches", "--policy", "--threads", "--seed", "--profile",
         "--shard", "--duplicate", "--max-hands", "--records", "--out", "--plot", "--chunk", "--backend",
         "--address", "--quiet", "-o", "--partial", "--version", "1", "2", "-1", "0/2", "x", "r.rec", "o.npz",
         "p.png", "missing/o.npz", "greedy,random,greedy,random", "nanning", "local"]


def one(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    target = fdp.ConsumeIntInRange(0, 6)
    if target == 6:  # the records writer fed frames: the seed file's, damaged or moved
        from tractor import _core

        raw = fdp.ConsumeBytes(fdp.remaining_bytes())
        data = open(RECORDS, "rb").read()
        frames = data[26 + int.from_bytes(data[18:22], "little") : -25]  # between header and footer
        w = _core.RecordsWriter(os.path.join(TMP, "w.rec"), len(raw) % 3, "{}")
        for k in range(0, len(raw), 40):
            try:
                w.write(_mutate(frames, raw[k : k + 40]) if k else frames[: len(raw) % 200])
            except TractorError:
                pass
        list(tractor.read_records(os.path.join(TMP, "w.rec"), replay=False, partial=True))
        w.finish(bool(len(raw) % 2))
        list(tractor.read_records(os.path.join(TMP, "w.rec"), replay=False))
    elif target == 0:  # a records file: raw bytes, or the seed file damaged
        raw = fdp.ConsumeBytes(fdp.remaining_bytes())
        base = open(RECORDS, "rb").read()
        blob = raw if len(raw) % 5 == 0 else _mutate(base, raw)
        for x in tractor.read_records(_file(blob, "x.rec"), replay=bool(len(raw) % 3), partial=bool(len(raw) % 2)):
            pass
    elif target == 1:  # an .npz
        raw = fdp.ConsumeBytes(fdp.remaining_bytes())
        base = open(NPZ, "rb").read()
        blob = raw if len(raw) % 2 else _mutate(base, raw)
        str(tractor.load(_file(blob, "x.npz")))
    elif target == 2:  # merge
        n = fdp.ConsumeIntInRange(0, 6)
        parts = []
        for _ in range(n):
            i = fdp.ConsumeIntInRange(0, len(SHARDS) + 2)
            parts.append(SHARDS[i] if i < len(SHARDS) else _value(fdp))
        shape = fdp.ConsumeIntInRange(0, 2)
        arg = parts if shape == 0 else tuple(parts) if shape == 1 else _value(fdp)
        str(tractor.merge(arg, partial=fdp.ConsumeBool()))
    elif target == 3:  # simulate's arguments
        kw = {}
        for _ in range(fdp.ConsumeIntInRange(0, 6)):
            kw[ARGS[fdp.ConsumeIntInRange(0, len(ARGS) - 1)]] = _value(fdp)
        if "records" in kw:
            kw["records"] = os.path.join(TMP, "s.rec") if fdp.ConsumeBool() else kw["records"]
        if _cheap(kw):
            str(tractor.simulate(**kw))
    else:  # the CLI
        argv = [WORDS[fdp.ConsumeIntInRange(0, len(WORDS) - 1)] for _ in range(fdp.ConsumeIntInRange(0, 8))]
        if argv[:1] not in (["simulate"], ["merge"], ["demo"]) and "--version" not in argv:
            argv = ["simulate", "--hands", "2", "--quiet"] + argv
        elif argv[:1] == ["simulate"] and "--hands" not in argv and "--matches" not in argv:
            argv += ["--hands", "2"]  # not the default 10,000
        old = os.getcwd()
        os.chdir(TMP)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                main(argv)
        except SystemExit as e:
            if e.code not in (0, 2):
                raise
        finally:
            os.chdir(old)


def _mutate(base: bytes, raw: bytes) -> bytes:
    out = bytearray(base)
    for i in range(0, len(raw) - 2, 3):
        if not out:
            break
        at = int.from_bytes(raw[i : i + 2], "little") % len(out)
        if raw[i + 2] == 0:
            del out[at:]
        elif raw[i + 2] == 1:  # a slice moved elsewhere: frames dropped, repeated or reordered
            to = int.from_bytes(raw[i : i + 1], "little") * 7 % len(out)
            out[to:to] = out[at : at + 300]
        else:
            out[at] ^= raw[i + 2]
    return bytes(out)


def test_one_input(data: bytes) -> None:
    try:
        one(data)
    except TractorError:
        pass


if __name__ == "__main__":
    # every file a fuzzed call names (records=, --out, ...) is written inside TMP, never in
    # the folder the fuzzer was started from (a run in the repository once filled it); the
    # corpus folders and input files named on the command line are made absolute first
    argv = [a if a.startswith("-") else os.path.abspath(a) for a in sys.argv[1:]]
    os.chdir(TMP)
    _setup()
    atheris.Setup([sys.argv[0]] + argv, test_one_input)
    atheris.Fuzz()
