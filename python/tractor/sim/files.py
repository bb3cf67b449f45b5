"""The files a run writes: the results archive's format and metadata (``to_npz``), the
:class:`NpzStream` that writes a run's arrays chunk by chunk (the CLI's ``--out``), and the
:class:`RecordsOut` of ``simulate(records=...)``. Each is written under a temporary name and
renamed once whole (:mod:`tractor._outputs`). Loading is :mod:`tractor.sim.loading`."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

import numpy as np

from .. import _core
from .._args import _path, _show
from .._outputs import held, put, remove, replacing, temp_path
from ..errors import InvalidArgument, OutputError
from ..records import _meta_text
from .columns import HAND_COLUMNS

RESULTS_FORMAT = "tractor-results-3"
# Version 2 stored banker_levels/defender_levels as u1 and return0..3 as i1; version 3 widens
# them (R7.4 levels below 0 are unbounded: up to 273 in a hand). Version 2 files still load.
_WIDENED_IN_3 = {"banker_levels": "u1", "defender_levels": "u1", "return0": "i1", "return1": "i1", "return2": "i1",
                 "return3": "i1"}


def _meta_lines(r: Any, kind: str) -> List[str]:
    rs = lambda x: ";".join(f"{a}-{b}" for a, b in x)  # noqa: E731
    lines = [f"format={RESULTS_FORMAT}", f"seed={r.run_seed}", "policies=" + ",".join(r.policies),
             f"profile={r.profile}", f"kind={kind}", f"requested={rs(r.requested)}",
             f"interrupted={int(bool(r.interrupted))}", f"elapsed={r.elapsed!r}"]
    if r.run is not None:
        lines.append(f"run={r.run[0]}-{r.run[1]}")
    return lines


def _savez(path: Any, meta: Any, arrays: Dict[str, Any]) -> None:
    if hasattr(path, "write"):  # a file object: the caller's to manage
        np.savez_compressed(path, __meta__=meta, **arrays)
        return
    target = os.fspath(path)
    if not target.endswith(".npz"):
        target += ".npz"  # what numpy.savez does with a name
    try:
        with replacing(target) as tmp, open(tmp, "wb") as f:
            np.savez_compressed(f, __meta__=meta, **arrays)
    except OSError as e:
        raise OutputError(f"to_npz: cannot write {_show(path)}: {e}") from None


class NpzStream:
    """Writes per-hand columns to disk chunk by chunk (temporary files beside ``path``), then
    into one ``.npz`` that :func:`load` reads like any ``to_npz`` file: a run's arrays never
    sit in memory (the CLI's ``--out``)."""

    def __init__(self, path: str, duplicate: bool) -> None:
        import tempfile

        self.path = path
        self.dir = tempfile.mkdtemp(prefix=".tractor-out-", dir=os.path.dirname(os.path.abspath(path)))
        names = list(HAND_COLUMNS) + ([f"rotated_{k}" for k in HAND_COLUMNS] if duplicate else [])
        self.files = {k: open(os.path.join(self.dir, k), "wb") for k in names}
        self.rows = 0
        self.error: Optional[str] = None

    def add(self, part: Dict[str, Any], rpart: Optional[Dict[str, Any]]) -> None:
        if self.error is not None:
            return
        try:
            for k in HAND_COLUMNS:
                self.files[k].write(part[k].tobytes())
                if rpart is not None:
                    self.files[f"rotated_{k}"].write(rpart[k].tobytes())
        except OSError as e:  # the run goes on: its summary is kept, the arrays are not
            self.error = f"cannot write the arrays beside {self.path!r} after {self.rows:,} hands: {e}"
            return
        self.rows += len(part["index"])

    def finish(self, res: Any, path: Optional[str] = None) -> None:
        """Writes the .npz (to ``path``, by default the one given at the start), with the
        metadata of ``res`` (the run's :class:`~tractor.SimResults`); the temporary files stay
        until :meth:`close`."""
        import zipfile

        import numpy.lib.format as fmt

        if self.error is not None:
            raise OutputError(self.error)
        target = path or self.path
        for f in self.files.values():
            f.flush()
        try:
            with replacing(target) as tmp, zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED,
                                                           allowZip64=True) as z:
                with z.open("__meta__.npy", "w", force_zip64=True) as f:
                    fmt.write_array(f, np.array(_meta_lines(res, "hands")))
                for k in self.files:
                    dt = np.dtype(HAND_COLUMNS[k.replace("rotated_", "", 1)])
                    with z.open(f"{k}.npy", "w", force_zip64=True) as f, open(os.path.join(self.dir, k), "rb") as src:
                        header = {"descr": fmt.dtype_to_descr(dt), "fortran_order": False, "shape": (self.rows,)}
                        fmt.write_array_header_2_0(f, header)
                        while True:
                            block = src.read(1 << 18)
                            if not block:
                                break
                            f.write(block)
        except OSError as e:
            raise OutputError(f"cannot write {target!r}: {e.strerror or e}") from None

    def close(self) -> None:
        import shutil

        with held():
            for f in self.files.values():
                try:
                    f.close()
                except OSError:
                    pass
            shutil.rmtree(self.dir, ignore_errors=True)


def _records_path(records: Any) -> str:
    try:
        return _path(records)
    except InvalidArgument as e:
        raise InvalidArgument(f"records: {e}") from None


class RecordsOut:
    """The records file of a run: written under a temporary name beside ``path`` (frames in
    hand order, checked and stamped by the core's writer), renamed to ``path`` with its footer
    at :meth:`finish`, removed by :meth:`abort`. ``hands`` counts the frames written."""

    def __init__(self, path: str, meta: Dict[str, Any], first: int) -> None:
        self.path = path
        self.tmp = temp_path(path)
        self.hands = 0
        if os.path.isdir(path):
            raise InvalidArgument(f"records: cannot write {path!r}: it is a folder")
        try:
            with held():
                self._w: Optional[Any] = _core.RecordsWriter(self.tmp, first, _meta_text(meta))
        except OSError as e:
            remove(self.tmp)
            raise InvalidArgument(f"records: cannot write {path!r}: {e.strerror or e}") from None

    def write(self, frames: bytes) -> None:
        """Appends a chunk's frames (OSError if the file cannot take them)."""
        if self._w is None:
            raise OSError("the records file is closed")
        self.hands += self._w.write(frames)

    def finish(self, stopped: bool) -> int:
        """Writes the footer and renames the file to its path: the number of hands in it."""
        with held():
            try:
                w, self._w = self._w, None
                if w is None:
                    raise OSError("the records file is closed")
                self.hands = w.finish(stopped)
                put(self.tmp, self.path)
            except BaseException:
                self.abort()
                raise
        return self.hands

    def abort(self) -> None:
        """Closes and removes the unfinished file."""
        with held():
            if self._w is not None:
                self._w.close()
                self._w = None
            remove(self.tmp)
