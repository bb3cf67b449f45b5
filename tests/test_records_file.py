"""Records files written by ``simulate(records=...)``, read back by ``tractor.read_records``.

- The file: a header (format, version, the run's seed, policies, profile, first index), then
  one checksummed frame per hand; the hands read back are the run's, in order.
- Streaming: linear time and flat memory (a file of 10^5 hands, and of 10^6 with
  ``TRACTOR_SCALE=1``, read in a few MB of Python memory); its speed is printed, not asserted.
- Faults: a missing, empty, foreign, truncated (at every byte) or damaged (every bit of a
  hand) file raises ``RecordsError`` naming the record and its byte offset, after yielding
  every record before the fault.
"""

from __future__ import annotations

import os
import struct
import time
import tracemalloc
import zlib

import pytest

import tractor
from tractor.errors import InvalidArgument, RecordsError, TractorError
from tractor.records import VERSION, Record, header_bytes

POLICIES = "greedy,random,greedy,random"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """40 hands with records, and the file."""
    path = tmp_path_factory.mktemp("rec") / "hands.rec"
    res = tractor.simulate(hands=40, policies=POLICIES, seed=3, threads=2, start=100, records=str(path), chunk=16)
    return res, path, path.read_bytes()


def frames_of(data: bytes):
    """The byte offsets of the frames, parsed independently of the engine."""
    assert data[:8] == b"TRACTREC"
    (version,) = struct.unpack_from("<H", data, 8)
    (mlen,) = struct.unpack_from("<I", data, 10)
    assert version == VERSION
    assert struct.unpack_from("<I", data, 14 + mlen)[0] == zlib.crc32(data[: 14 + mlen])
    at, out = 18 + mlen, []
    while at < len(data):
        (n,) = struct.unpack_from("<I", data, at)
        assert struct.unpack_from("<I", data, at + 4 + n)[0] == zlib.crc32(data[at : at + 4 + n])
        out.append(at)
        at += 8 + n
    assert at == len(data)
    return 18 + mlen, out


def test_header_and_records_match_the_run(run):
    res, path, data = run
    reader = tractor.read_records(str(path), replay=False)
    h = reader.header
    assert (h["format"], h["version"], h["seed"], h["start"], h["hands"]) == ("tractor-records", VERSION, 3, 100, 40)
    assert h["policies"] == POLICIES.split(",") and h["profile"] == "guigang"
    recs = list(reader)
    _, offsets = frames_of(data)
    assert [r.index for r in recs] == list(range(40))
    assert [r.offset for r in recs] == offsets
    assert reader.records_read == 40
    for r, seed in zip(recs, res["seed"]):
        assert isinstance(r, Record)
        assert (r.hand_seed, r.profile, r.level0, r.level1, r.banker) == (int(seed), "guigang", 3, 3, None)
        assert r.decisions > 0 and r.frame == data[r.offset : r.offset + len(r.frame)]
    games = list(tractor.read_records(path))  # a PathLike works too
    assert [g.result.score for g in games] == res.score.tolist()
    assert [r.replay().result for r in recs[:5]] == [g.result for g in games[:5]]


def test_readers_are_iterators_and_context_managers(run):
    _, path, _ = run
    with tractor.read_records(path, replay=False, batch=7) as r:
        assert iter(r) is r
        first = next(r)
        assert first.index == 0
        assert len(list(r)) == 39
        with pytest.raises(StopIteration):
            next(r)


def expect_fault(data: bytes, tmp_path, name: str = "bad.rec"):
    """Reads a file to its end or fault: (records read, the error or None)."""
    p = tmp_path / name
    p.write_bytes(data)
    n = 0
    try:
        for _ in tractor.read_records(p, replay=False):
            n += 1
    except RecordsError as e:
        assert isinstance(e, TractorError) and isinstance(e, ValueError)
        assert e.path == str(p) and str(p) in str(e)
        return n, e
    return n, None


def test_every_cut_is_found_where_it_is(run, tmp_path):
    _, _, data = run
    head, offsets = frames_of(data)
    ends = offsets[1:] + [len(data)]
    for cut in range(len(data)):
        n, e = expect_fault(data[:cut], tmp_path)
        if cut < head:
            assert e is not None and e.index is None and n == 0, cut
            assert ("header" in str(e)) or ("not a tractor records file" in str(e))
            continue
        whole = sum(1 for x in ends if x <= cut)
        assert n == whole, cut
        if cut in offsets or cut == head:
            assert e is None, (cut, e)  # a cut between frames is a shorter, whole file
        else:
            assert e is not None and e.truncated and e.index == whole and e.offset == offsets[whole], (cut, e)
            assert f"record {whole} (at byte {offsets[whole]})" in str(e) and "truncated" in str(e)


def test_every_flipped_bit_of_a_hand_is_found(run, tmp_path):
    _, _, data = run
    head, offsets = frames_of(data)
    k = 7
    lo, hi = offsets[k], offsets[k + 1]
    for bit in range((hi - lo) * 8):
        bad = bytearray(data)
        bad[lo + bit // 8] ^= 1 << (bit % 8)
        n, e = expect_fault(bytes(bad), tmp_path)
        assert e is not None and e.index == k and e.offset == lo and n == k, bit
    # and in the header
    for bit in range(head * 8):
        bad = bytearray(data)
        bad[bit // 8] ^= 1 << (bit % 8)
        n, e = expect_fault(bytes(bad), tmp_path)
        assert e is not None and e.index is None and n == 0, bit


def test_foreign_and_missing_files_are_refused(run, tmp_path):
    _, _, data = run
    head, offsets = frames_of(data)
    for blob, words in [
        (b"", "empty"),
        (b"PK\x03\x04 not records", "not a tractor records file"),
        (data[head:], "no TRACTREC header"),  # frames without a header (engine 0.1 files)
        (b"TRACTREC\x01\x00" + bytes(8), "version 1"),
        (os.urandom(5000), "not a tractor records file"),
    ]:
        n, e = expect_fault(blob, tmp_path)
        assert e is not None and words in str(e) and n == 0, (words, e)
    with pytest.raises(RecordsError, match="cannot open"):
        tractor.read_records(tmp_path / "missing.rec")
    with pytest.raises(RecordsError):
        list(tractor.read_records(tmp_path))  # a folder
    for bad in (None, 3, b"x.rec", ["x"]):
        with pytest.raises(InvalidArgument, match="path"):
            tractor.read_records(bad)
    with pytest.raises(InvalidArgument, match="replay"):
        tractor.read_records("x", replay="yes")
    with pytest.raises(InvalidArgument, match="batch"):
        tractor.read_records("x", batch=0)


def test_a_record_that_does_not_replay_is_named(run, tmp_path):
    """A frame whose checksum holds but whose actions break the rules (as a foreign writer
    could make): the error names the record."""
    _, _, data = run
    head, offsets = frames_of(data)
    k = 3
    lo, hi = offsets[k], offsets[k + 1]
    body = bytearray(data[lo + 4 : hi - 4])
    body[1] ^= 0xFF  # another hand seed: another deal, the plays are not in the hands
    frame = struct.pack("<I", len(body)) + bytes(body)
    frame += struct.pack("<I", zlib.crc32(frame))
    p = tmp_path / "forged.rec"
    p.write_bytes(data[:lo] + frame + data[hi:])
    got = []
    with pytest.raises(RecordsError, match=rf"record {k} \(at byte {lo}\): does not replay") as e:
        for g in tractor.read_records(p, batch=2):
            got.append(g)
    assert len(got) == k and e.value.index == k
    recs = list(tractor.read_records(p, replay=False))  # checked, not replayed: it reads
    with pytest.raises(RecordsError, match="does not replay"):
        recs[k].replay()


def big_file(path, frames: bytes, count: int, per: int) -> None:
    """A records file of `count` hands, the run's frames repeated (every frame is whole)."""
    header = header_bytes({"seed": 0, "note": "repeated frames"})
    reps = count // per
    with open(path, "wb") as f:
        f.write(header)
        for _ in range(reps):
            f.write(frames)


@pytest.mark.parametrize("count", [100_000, pytest.param(1_000_000, marks=pytest.mark.skipif(
    not os.environ.get("TRACTOR_SCALE"), reason="10^6 hands: set TRACTOR_SCALE=1"))])
def test_reading_is_linear_in_flat_memory(run, tmp_path, count):
    _, _, data = run
    head, offsets = frames_of(data)
    frames = data[head:]
    path = tmp_path / "big.rec"
    big_file(path, frames, count, len(offsets))
    t0 = time.perf_counter()
    n = sum(1 for _ in tractor.read_records(path, replay=False))
    dt = time.perf_counter() - t0
    assert n == count
    tracemalloc.start()
    n, last, decisions = 0, None, 0
    for r in tractor.read_records(path, replay=False):
        n += 1
        decisions += r.decisions
        last = r
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    size = path.stat().st_size
    assert n == count and last.index == count - 1 and last.offset + len(last.frame) == size
    assert peak < 8 << 20, f"{peak / 2**20:.1f} MiB of Python memory to read {size / 2**20:.0f} MiB"
    print(f"\nread {n:,} records ({size / 2**20:.0f} MiB) in {dt:.2f}s: {n / dt:,.0f} records/s; "
          f"peak {peak / 2**20:.1f} MiB of Python memory")


def test_records_written_by_shards_are_the_run_split():
    """Hands read back from shard files are the whole run's, in order."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        whole = os.path.join(d, "w.rec")
        tractor.simulate(hands=30, seed=5, threads=1, records=whole)
        parts = []
        for i, (a, n) in enumerate([(0, 12), (12, 18)]):
            p = os.path.join(d, f"{i}.rec")
            tractor.simulate(hands=n, start=a, seed=5, threads=2, records=p)
            parts += [r.frame for r in tractor.read_records(p, replay=False)]
        assert parts == [r.frame for r in tractor.read_records(whole, replay=False)]


def test_a_failed_records_open_changes_nothing(tmp_path):
    with pytest.raises(InvalidArgument, match="records"):
        tractor.simulate(hands=10, records=str(tmp_path / "missing" / "r.rec"))
    with pytest.raises(InvalidArgument, match="records"):
        tractor.simulate(hands=10, records=str(tmp_path))
    # another bad argument: the records file is not even created
    with pytest.raises(InvalidArgument, match="threads"):
        tractor.simulate(hands=10, records=str(tmp_path / "r.rec"), threads=0)
    assert not (tmp_path / "r.rec").exists()


@pytest.mark.skipif(not os.environ.get("TRACTOR_SCALE"), reason="10^6 simulated hands (minutes): set TRACTOR_SCALE=1")
def test_a_million_hands_written_and_read_back(tmp_path):
    """10^6 random hands with records: every record read back is its hand (seed and number of
    decisions, against the run's arrays), in Python memory that does not grow with the file."""
    import numpy as np

    path = tmp_path / "m.rec"
    n = 1_000_000
    r = tractor.simulate(hands=n, policies=("random",) * 4, seed=11, threads=2, records=str(path), chunk=50_000)
    seeds = np.empty(n, dtype=np.uint64)
    decisions = np.empty(n, dtype=np.uint32)
    tracemalloc.start()
    k = 0
    for rec in tractor.read_records(path, replay=False):
        seeds[rec.index] = rec.hand_seed
        decisions[rec.index] = rec.decisions
        k += 1
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert k == n
    assert np.array_equal(seeds, r["seed"]) and np.array_equal(decisions, r["decisions"].astype(np.uint32))
    assert peak < 8 << 20, f"{peak / 2**20:.1f} MiB"
    # spot checks: replayed games are the run's hands
    for i, g in enumerate(tractor.read_records(path)):
        assert g.result.score == r.score[i]
        if i == 20_000:
            break
