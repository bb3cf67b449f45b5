"""Records files: the compact action stream of every hand of a run, read back as a stream.

``simulate(records=path)`` writes a header (format name and version, the run's seed,
policies, profile and first index, as JSON) and then one frame per hand: the hand's compact
record (about 350 bytes) between its length and a CRC-32. :func:`read_records` streams the
file frame by frame, in linear time and constant memory, and stops at the first truncated or
damaged frame with a :class:`~tractor.errors.RecordsError` that names the record and its byte
offset (the records before it were read whole and checked).
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
VERSION = 2
"""The version of the file layout this engine writes and reads."""


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
    """The frame as stored: length, body, CRC."""

    def replay(self) -> Any:
        """The hand as a full :class:`~tractor.Game`, every action checked."""
        try:
            g, _ = _core.replay_record(self.frame)
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
    ``policies``, ``profile``, ``start``); ``records_read`` counts what was yielded.
    A context manager: ``with read_records(p) as r: ...`` closes the file."""

    def __init__(self, path: Any, replay: bool = True, batch: Optional[int] = None) -> None:
        self.path = _path(path)
        replay = _bool(replay, "replay")
        if batch is not None:
            batch = _int(batch, "batch (None: the default)", 1, 1 << 20)
        self.replay = replay
        self._batch = batch or (256 if replay else 4096)
        self._r: Optional[Any] = _core.RecordReader(self.path)
        meta_text = self._r.meta
        try:
            meta = json.loads(meta_text) if meta_text else {}
            if not isinstance(meta, dict):
                raise ValueError("not an object")
        except ValueError:
            self._r = None
            raise RecordsError(f"{self.path}: header: its metadata is not a JSON object", path=self.path) from None
        self.header: Dict[str, Any] = {"format": FORMAT, "version": VERSION, **meta}
        self.records_read = 0
        self._items = self._stream()

    def __iter__(self) -> "RecordReader":
        return self

    def __next__(self) -> Any:
        return next(self._items)

    def _stream(self) -> Iterator[Any]:
        wrap = Game._wrap
        make = Record._make
        while self._r is not None:
            try:
                batch = self._r.games(self._batch) if self.replay else self._r.read(self._batch)
            except BaseException:
                self.close()
                raise
            if not batch:
                break
            for item in batch:
                self.records_read += 1
                if self.replay:
                    yield wrap(item)
                elif item[6] == 255:
                    yield make(item[:6] + (None,) + item[7:])
                else:
                    yield make(item)
        self.close()

    def close(self) -> None:
        self._r = None

    def __enter__(self) -> "RecordReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def read_records(path: Union[str, "os.PathLike[str]"], *, replay: bool = True,
                 batch: Optional[int] = None) -> RecordReader:
    """Streams a records file written by ``simulate(records=...)``: yields each hand as a full
    :class:`~tractor.Game` (replayed and checked), or with ``replay=False`` as a
    :class:`Record` (checked, not replayed: far faster; ``record.replay()`` gives its game).

    Raises :class:`~tractor.errors.RecordsError` for a missing, foreign, truncated or damaged
    file, naming the record and its byte offset (when iteration reaches it), and
    :class:`~tractor.errors.InvalidArgument` for a bad argument."""
    return RecordReader(path, replay=replay, batch=batch)


def header_bytes(meta: Dict[str, Any]) -> bytes:
    """The header of a records file describing a run."""
    return _core.records_file_header(json.dumps({"format": FORMAT, **meta}, sort_keys=True))
