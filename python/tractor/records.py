"""Records files: the compact action stream of every hand of a run, read back as a stream.

``simulate(records=path)`` writes a header (format name and version, the run's seed,
policies, profile and first index, as JSON), one frame per hand (the hand's compact record,
about 350 bytes, with its run tag and hand index, under a CRC-32), and a footer (how many
frames, a digest of them all, whether the run stopped early), so that a file proves its own
completeness and order. :func:`read_records` streams the file frame by frame, in linear time
and constant memory, and stops at the first fault with a :class:`~tractor.errors.RecordsError`
that names the record and its byte offset (the records before it were read whole, checked
and in order): a truncated or damaged frame, a frame of another run, a gap, a repeat or a
reorder, a footer that does not match, and a file without its footer (its run did not finish
writing it; ``partial=True`` reads the prefix it proves).

Files of version 2 (engine 0.1 before the footer) still read, with a weaker guarantee: a
damaged or truncated frame is found, a file cut between frames, or frames dropped, repeated,
reordered or foreign, are not.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterator, NamedTuple, Optional, Union

from . import _core
from ._args import _bool, _int, _path
from .errors import RecordsError
from .game import Game

__all__ = ["Record", "RecordReader", "read_records", "FORMAT", "VERSION"]

FORMAT = "tractor-records"
VERSION = 3
"""The version of the file layout this engine writes (it reads 2 and 3)."""


class Record(NamedTuple):
    """One hand of a records file, checked (length, CRC, action codes) but not replayed."""

    index: int
    """The record's position in the file (0: the first hand)."""
    offset: int
    """The byte offset of its frame."""
    hand_seed: int
    profile: str
    level0: int
    level1: int
    banker: Optional[int]
    """None: the final declarer becomes banker (the first hand of a match)."""
    decisions: int
    """The number of decisions (passes, showings, plays) in the record."""
    frame: bytes
    """The frame as stored: length, run tag, hand index, body, CRC (version 2: length, body, CRC)."""
    hand: int
    """The hand's index in its run (the header's ``start`` plus ``index``)."""

    def replay(self) -> Any:
        """The hand as a full :class:`~tractor.Game`, every action checked."""
        legacy = len(self.frame) == 8 + int.from_bytes(self.frame[:4], "little")
        try:
            g, _ = _core.replay_record(self.frame, legacy)
        except RecordsError:
            raise
        except ValueError as e:  # a TractorError of the rules: the record does not replay
            raise RecordsError(f"record {self.index} (at byte {self.offset}): does not replay: {e}",
                               index=self.index, offset=self.offset) from None
        return Game._wrap(g)


class RecordReader:
    """Iterates a records file: :class:`~tractor.Game` objects (``replay=True``, replayed in
    parallel batches) or :class:`Record` tuples (``replay=False``, several hundred thousand a
    second). ``header`` holds the file's metadata (``format``, ``version``, ``seed``,
    ``policies``, ``profile``, ``start``, ``hands``: the hands the run planned);
    ``records_read`` counts what was yielded.

    Once iteration has ended without an error: ``complete`` is True if the footer proved
    every record (count, order, digest), False for an incomplete file read with
    ``partial=True`` or a version-2 file (which cannot prove it); ``stopped`` is True if the
    run stopped before its planned hands (Ctrl-C, a failure: the file then holds the hands
    that finished, ``header["start"]`` to ``header["start"] + records_read``). Both are None
    while reading. A context manager: ``with read_records(p) as r: ...`` closes the file."""

    def __init__(self, path: Any, replay: bool = True, batch: Optional[int] = None, partial: bool = False) -> None:
        self.path = _path(path)
        replay = _bool(replay, "replay")
        partial = _bool(partial, "partial")
        if batch is not None:
            batch = _int(batch, "batch (None: the default)", 1, 1 << 20)
        self.replay = replay
        self.partial = partial
        self.complete: Optional[bool] = None
        self.stopped: Optional[bool] = None
        self._batch = batch or (256 if replay else 4096)
        self._r: Optional[Any] = _core.RecordReader(self.path, partial)
        self.version: int = self._r.version
        meta_text = self._r.meta
        try:
            meta = json.loads(meta_text) if meta_text else {}
            if not isinstance(meta, dict):
                raise ValueError("not an object")
        except ValueError:
            self._r = None
            raise RecordsError(f"{self.path}: header: its metadata is not a JSON object", path=self.path) from None
        self.header: Dict[str, Any] = {"format": FORMAT, **meta, "version": self.version}
        start = self.header.get("start", 0)
        self._start = start if self.version < 3 and isinstance(start, int) else 0
        self.records_read = 0
        self._items = self._stream()

    def __iter__(self) -> "RecordReader":
        return self

    def __next__(self) -> Any:
        return next(self._items)

    def _stream(self) -> Iterator[Any]:
        wrap = Game._wrap
        make = Record._make
        start = self._start
        while self._r is not None:
            try:
                batch = self._r.games(self._batch) if self.replay else self._r.read(self._batch)
            except BaseException:
                self.close()
                raise
            if not batch:
                end = self._r.end
                if end is not None:
                    self.complete, self.stopped = end[0], (end[1] if end[0] else None)
                break
            for item in batch:
                self.records_read += 1
                if self.replay:
                    yield wrap(item)
                else:
                    # (index, offset, hand, seed, profile, level0, level1, banker, decisions, frame)
                    index, offset, hand, *rest = item
                    if rest[4] == 255:
                        rest[4] = None
                    yield make((index, offset, *rest, hand + start))
        self.close()

    def close(self) -> None:
        self._r = None

    def __enter__(self) -> "RecordReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def read_records(path: Union[str, "os.PathLike[str]"], *, replay: bool = True,
                 batch: Optional[int] = None, partial: bool = False) -> RecordReader:
    """Streams a records file written by ``simulate(records=...)``: yields each hand as a full
    :class:`~tractor.Game` (replayed and checked), or with ``replay=False`` as a
    :class:`Record` (checked, not replayed: far faster; ``record.replay()`` gives its game).

    Raises :class:`~tractor.errors.RecordsError` for a missing, foreign, truncated or damaged
    file, a frame of another run, a gap, repeat or reorder, a footer that does not match, or a
    file without its footer, naming the record and its byte offset (when iteration reaches
    it), and :class:`~tractor.errors.InvalidArgument` for a bad argument. ``partial=True``
    reads an incomplete file (a run killed while writing it: its ``.tractor-partial`` file)
    up to where it ends, without an error; damage still raises."""
    return RecordReader(path, replay=replay, batch=batch, partial=partial)


def _meta_text(meta: Dict[str, Any]) -> str:
    return json.dumps({"format": FORMAT, **meta}, sort_keys=True)
