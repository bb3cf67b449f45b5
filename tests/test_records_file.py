"""Records files written by ``simulate(records=...)``, read back by ``tractor.read_records``.

- The file: a header (format, version, first index, the run's seed, policies, profile), one
  checksummed frame per hand carrying the run tag and its hand index, and a footer (count,
  digest, stopped); the hands read back are the run's, in order. The layout is parsed and
  forged here independently of the engine (``parse``, ``build``, with zlib's CRC).
- Streaming: linear time and flat memory (a file of 10^5 hands, and of 10^6 with
  ``TRACTOR_SCALE=1``, read in a few MB of Python memory); its speed is printed, not asserted.
- Faults: a missing, empty, foreign, truncated (at every byte), damaged (every bit of a
  hand), reordered, repeated, gapped or foreign-framed file, or one without its footer,
  raises ``RecordsError`` naming the record and its byte offset, after yielding every record
  before the fault. ``partial=True`` reads an unfinished file's proven prefix.
- Version-2 files still read, with their weaker guarantee.
"""

from __future__ import annotations

import json
import os
import struct
import time
import tracemalloc
import zlib

import pytest

import tractor
from tractor.errors import InvalidArgument, RecordsError, TractorError
from tractor.records import VERSION, Record

POLICIES = "greedy,random,greedy,random"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """40 hands with records, and the file."""
    path = tmp_path_factory.mktemp("rec") / "hands.rec"
    res = tractor.simulate(hands=40, policies=POLICIES, seed=3, threads=2, start=100, records=str(path), chunk=16)
    return res, path, path.read_bytes()


FOOTER = 25


def parse(data: bytes):
    """The file, parsed independently of the engine: (header length, first index, run tag,
    [(offset, hand index, body)], footer (frames, flags) or None)."""
    assert data[:8] == b"TRACTREC"
    (version,) = struct.unpack_from("<H", data, 8)
    assert version == VERSION
    first, mlen = struct.unpack_from("<QI", data, 10)
    head = 22 + mlen
    (tag,) = struct.unpack_from("<I", data, head)
    assert tag == zlib.crc32(data[:head])
    at, frames, footer, digest = head + 4, [], None, 0
    while at < len(data):
        (n,) = struct.unpack_from("<I", data, at)
        if n == 0xFFFFFFFF:
            ftag, count, flags, fdigest, crc = struct.unpack_from("<IQBII", data, at + 4)
            assert (ftag, count, fdigest, crc) == (tag, len(frames), digest, zlib.crc32(data[at : at + 21]))
            footer = (count, flags)
            at += FOOTER
            break
        ftag, index = struct.unpack_from("<IQ", data, at + 4)
        (crc,) = struct.unpack_from("<I", data, at + 16 + n)
        assert crc == zlib.crc32(data[at : at + 16 + n]) and ftag == tag and index == first + len(frames)
        digest = zlib.crc32(struct.pack("<I", crc), digest)
        frames.append((at, index, data[at + 16 : at + 16 + n]))
        at += 20 + n
    assert at == len(data)
    return head + 4, first, tag, frames, footer


def build(meta: dict, first: int, frames, footer=True, stopped=False, tag=None, count=None) -> bytes:
    """A version-3 file forged here: `frames` are (hand index, body); `tag` (default: the
    header's) goes into every frame and the footer; `count` (default: the frames) into the
    footer."""
    m = json.dumps(meta).encode()
    head = b"TRACTREC" + struct.pack("<HQI", 3, first, len(m)) + m
    own = zlib.crc32(head)
    tag = own if tag is None else tag
    out = [head, struct.pack("<I", own)]
    digest = 0
    for index, body in frames:
        f = struct.pack("<IIQ", len(body), tag, index) + body
        crc = zlib.crc32(f)
        digest = zlib.crc32(struct.pack("<I", crc), digest)
        out.append(f + struct.pack("<I", crc))
    if footer:
        f = struct.pack("<IIQBI", 0xFFFFFFFF, tag, len(frames) if count is None else count, int(stopped), digest)
        out.append(f + struct.pack("<I", zlib.crc32(f)))
    return b"".join(out)


def frames_of(data: bytes):
    """The header's length and the frames' byte offsets."""
    head, _, _, frames, _ = parse(data)
    return head, [at for at, _, _ in frames]


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
    assert reader.records_read == 40 and reader.complete is True and reader.stopped is False
    assert [r.hand for r in recs] == list(range(100, 140))
    assert parse(data)[4] == (40, 0) and parse(data)[1] == 100
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
    n, e, _ = read_all(p)
    return n, e


def read_all(path, partial=False):
    """Reads a file to its end or fault: (records read, the error or None, the reader)."""
    n, r = 0, None
    try:
        r = tractor.read_records(path, replay=False, partial=partial)
        for _ in r:
            n += 1
    except RecordsError as e:
        assert isinstance(e, TractorError) and isinstance(e, ValueError)
        assert e.path == str(path) and str(path) in str(e)
        return n, e, r
    return n, None, r


def test_every_cut_is_found_where_it_is(run, tmp_path):
    """A file cut anywhere is refused, where the cut is; between frames too (no footer);
    with partial=True it reads its whole records and says it is not complete."""
    _, _, data = run
    head, offsets = frames_of(data)
    footer_at = len(data) - FOOTER
    ends = offsets[1:] + [footer_at]
    p = tmp_path / "cut.rec"
    for cut in range(len(data)):
        p.write_bytes(data[:cut])
        n, e, _ = read_all(p)
        if cut < head:
            assert e is not None and e.index is None and n == 0, cut
            assert ("header" in str(e)) or ("not a tractor records file" in str(e))
            continue
        whole = sum(1 for x in ends if x <= cut)
        assert n == whole and e is not None and e.incomplete, (cut, e)
        at = offsets[whole] if whole < len(offsets) else footer_at
        assert e.index == whole and e.offset == at, (cut, e)
        if cut == at:
            assert not e.truncated and f"the file ends after {whole} records without its footer" in str(e)
            assert "partial=True" in str(e)
        else:
            assert e.truncated and f"record {whole} (at byte {at})" in str(e) and "truncated" in str(e), (cut, e)
        if cut % 7 == 0 or cut == at:
            n2, e2, r = read_all(p, partial=True)
            assert (n2, e2, r.complete, r.stopped) == (whole, None, False, None), cut
    p.write_bytes(data)
    n, e, r = read_all(p)
    assert (n, e, r.complete) == (40, None, True)


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
    _, first, tag, frames, _ = parse(data)
    bodies = [(i, b) for _, i, b in frames]
    body = bytearray(bodies[k][1])
    body[1] ^= 0xFF  # another hand seed: another deal, the plays are not in the hands
    bodies[k] = (first + k, bytes(body))
    meta = {"format": "tractor-records", "note": "forged"}
    p = tmp_path / "forged.rec"
    p.write_bytes(build(meta, first, bodies))
    lo = frames_of(p.read_bytes())[1][k]
    got = []
    with pytest.raises(RecordsError, match=rf"record {k} \(at byte {lo}\): does not replay") as e:
        for g in tractor.read_records(p, batch=2):
            got.append(g)
    assert len(got) == k and e.value.index == k
    recs = list(tractor.read_records(p, replay=False))  # checked, not replayed: it reads
    with pytest.raises(RecordsError, match="does not replay"):
        recs[k].replay()


def big_file(path, bodies, count: int) -> None:
    """A records file of `count` hands, the run's hands repeated (each frame whole, in order)."""
    with open(path, "wb") as f:
        f.write(build({"seed": 0, "note": "repeated hands"}, 0, [(i, bodies[i % len(bodies)]) for i in range(count)]))


@pytest.mark.parametrize("count", [100_000, pytest.param(1_000_000, marks=pytest.mark.skipif(
    not os.environ.get("TRACTOR_SCALE"), reason="10^6 hands: set TRACTOR_SCALE=1"))])
def test_reading_is_linear_in_flat_memory(run, tmp_path, count):
    _, _, data = run
    bodies = [b for _, _, b in parse(data)[3]]
    path = tmp_path / "big.rec"
    big_file(path, bodies, count)
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
    assert n == count and last.index == count - 1 and last.offset + len(last.frame) == size - FOOTER
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
            parts += [(r.hand, r.frame[8:-4]) for r in tractor.read_records(p, replay=False)]
        # the same hands (index and body) under each file's own run tag (and so CRC)
        assert parts == [(r.hand, r.frame[8:-4]) for r in tractor.read_records(whole, replay=False)]


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


def test_dropped_repeated_reordered_and_foreign_frames_are_named(run, tmp_path):
    """Each kind of damage that keeps every frame whole is found at the record where it is."""
    _, path, data = run
    head, offsets = frames_of(data)
    footer_at = len(data) - FOOTER
    o = offsets + [footer_at]
    other = tmp_path / "other.rec"  # another run: another seed, and the hands that follow this run's
    tractor.simulate(hands=10, policies=POLICIES, seed=4, start=140, records=str(other))
    odata = other.read_bytes()
    ohead, _ = frames_of(odata)
    same_start = tmp_path / "same.rec"  # another run over the same hands 100..139
    tractor.simulate(hands=40, policies=POLICIES, seed=4, start=100, records=str(same_start))
    sdata = same_start.read_bytes()
    shead, _ = frames_of(sdata)
    cases = {
        "dropped": (data[: o[5]] + data[o[6]:], 5, o[5], "hand 106 where hand 105 was expected: hands 105 to 105 are missing"),
        "repeated": (data[: o[6]] + data[o[5] : o[6]] + data[o[6]:], 6, o[6], "hand 105 again where hand 106 was expected"),
        "swapped": (data[: o[5]] + data[o[6] : o[7]] + data[o[5] : o[6]] + data[o[7]:], 5, o[5],
                    "hand 106 where hand 105 was expected"),
        "another run appended": (data[:footer_at] + odata[ohead:], 40, footer_at, "a frame of another run"),
        "another run under this header": (data[:head] + sdata[shead:], 0, head, "a frame of another run"),
        "bytes after the footer": (data + odata[ohead:], 40, footer_at + FOOTER, "bytes follow the footer"),
        "the footer of another run": (data[:footer_at] + sdata[-FOOTER:], 40, footer_at, "the footer of another run"),
    }
    _, first, _, frames, _ = parse(data)
    bodies = [(i, b) for _, i, b in frames]
    forged = bytearray(bodies[9][1])
    forged[1] ^= 1
    meta = {"format": "tractor-records"}
    swapped_body = bodies[:9] + [(first + 9, bytes(forged))] + bodies[10:]
    good = build(meta, first, bodies)
    replaced = build(meta, first, swapped_body)
    # the frame replaced whole (its own CRC, tag and index right): only the footer's digest knows
    fa = len(replaced) - FOOTER
    cases["a frame replaced whole"] = (replaced[:fa] + good[fa:], 40, fa, "digest does not match")
    cases["a footer that miscounts"] = (build(meta, first, bodies, count=39), 40, fa, "it counts 39 records, the file holds 40")
    for name, (blob, index, offset, words) in cases.items():
        n, e = expect_fault(blob, tmp_path)
        assert e is not None and words in str(e), (name, e)
        assert (n, e.index, e.offset, e.incomplete) == (index, index, offset, False), (name, e)
        assert f"record {index} (at byte {offset})" in str(e), (name, e)


def test_an_interrupted_run_writes_the_hands_that_finished_and_says_so(tmp_path, sigint_default):
    """Ctrl-C during a run: the records file holds the chunks that finished, whole, with a
    footer that says the run stopped; its count is what the results say was written."""
    import signal

    path = tmp_path / "r.rec"
    calls = []

    def progress(done, total):
        calls.append(done)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGINT)

    res = tractor.simulate(hands=200, seed=6, chunk=20, threads=1, records=str(path), progress=progress)
    assert res.interrupted and 40 <= len(res) < 200
    assert res.meta["records_written"] == len(res)
    r = tractor.read_records(path, replay=False)
    recs = list(r)
    assert (r.complete, r.stopped, len(recs)) == (True, True, len(res))
    assert [x.hand_seed for x in recs] == res["seed"].tolist()
    assert os.listdir(tmp_path) == ["r.rec"]  # no temporary file left


def test_version_2_files_still_read_with_their_weaker_guarantee(run, tmp_path):
    _, _, data = run
    _, first, _, frames, _ = parse(data)
    meta = json.dumps({"format": "tractor-records", "seed": 3, "start": 100, "hands": 40}).encode()
    head = b"TRACTREC" + struct.pack("<HI", 2, len(meta)) + meta
    out = [head, struct.pack("<I", zlib.crc32(head))]
    for _, _, body in frames:
        f = struct.pack("<I", len(body)) + body
        out.append(f + struct.pack("<I", zlib.crc32(f)))
    v2 = b"".join(out)
    p = tmp_path / "v2.rec"
    p.write_bytes(v2)
    r = tractor.read_records(p, replay=False)
    recs = list(r)
    assert r.version == 2 and r.header["version"] == 2 and r.complete is False
    assert [x.hand for x in recs] == list(range(100, 140))
    assert [x.frame[4:-4] for x in recs] == [b for _, _, b in frames]
    games = list(tractor.read_records(p))
    assert [g.result for g in games[:3]] == [x.replay().result for x in recs[:3]]
    # the weaker guarantee: a version-2 file cut between frames reads as a shorter file
    cut = len(head) + 4 + sum(8 + len(b) for _, _, b in frames[:5])
    p.write_bytes(v2[:cut])
    n, e, r = read_all(p)
    assert (n, e, r.complete) == (5, None, False)


def test_the_writer_takes_only_the_next_frames_whole(run, tmp_path):
    """The core's writer refuses frames that are damaged or not the file's next hands, and
    writes nothing of them."""
    from tractor import _core

    _, _, data = run
    _, offsets = frames_of(data)
    o = offsets + [len(data) - FOOTER]
    p = tmp_path / "w.rec"
    w = _core.RecordsWriter(str(p), 100, "{}")
    assert w.write(data[o[0] : o[3]]) == 3 and w.next_index == 103
    for bad, words in [(data[o[4] : o[5]], "hand 104 where the file's next is hand 103"),
                       (data[o[3] : o[5]][:-1], "frame needs"),
                       (data[o[3] : o[4]][:20] + b"\x00" + data[o[3] : o[4]][21:], "checksum")]:
        with pytest.raises(InvalidArgument, match=words):
            w.write(bad)
        assert w.frames == 3
    assert w.write(data[o[3] : o[5]]) == 2 and w.finish(False) == 5
    r = tractor.read_records(p, replay=False)
    assert [x.hand for x in r] == [100, 101, 102, 103, 104] and r.complete
