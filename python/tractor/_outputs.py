"""Files written whole or not at all, whatever Ctrl-C does.

Every file the package writes goes to a temporary name beside its target
(:func:`temp_path`: ``.NAME.PID.tractor-partial``) and is renamed over the target once whole
(:func:`put`); on an error or a KeyboardInterrupt the temporary file is removed
(:func:`replacing`). The rename and the removal run with Ctrl-C held (:func:`held`), and the
CLI holds Ctrl-C while it writes its outputs and reports them, so a Ctrl-C at any moment
leaves a target either whole and reported, or absent (and the caller says why). Only a killed process (SIGKILL, a power cut) can leave a temporary file; a records
file's one reads with ``read_records(path, partial=True)``.
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager
from typing import Any, Iterator, List

SUFFIX = ".tractor-partial"


def temp_path(path: str) -> str:
    """The temporary name beside ``path`` that this process writes it under."""
    head, tail = os.path.split(os.path.abspath(path))
    return os.path.join(head, f".{tail}.{os.getpid()}{SUFFIX}")


@contextmanager
def held() -> Iterator[None]:
    """Ctrl-C waits until the block ends, then acts as it would have (in the main thread;
    elsewhere signals do not arrive anyway)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    hits: List[int] = []
    try:
        old = signal.signal(signal.SIGINT, lambda signum, frame: hits.append(signum))
    except (ValueError, OSError):  # not the main interpreter, or no signals here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if hits:
            _deliver(old)


def _deliver(handler: Any) -> None:
    if callable(handler):
        handler(signal.SIGINT, None)
    elif handler == signal.SIG_DFL:
        raise KeyboardInterrupt


def remove(path: str) -> None:
    """Removes ``path`` (if there), Ctrl-C held."""
    with held():
        try:
            os.unlink(path)
        except OSError:
            pass


def put(tmp: str, path: str) -> None:
    """Renames the whole temporary file ``tmp`` over ``path`` (Ctrl-C held); on an OSError
    removes ``tmp`` and raises it."""
    with held():
        try:
            os.replace(tmp, path)
        except OSError:
            remove(tmp)
            raise


@contextmanager
def replacing(path: str) -> Iterator[str]:
    """Yields the temporary name to write ``path`` under; when the block ends without an
    exception, renames it over ``path`` (:func:`put`); otherwise removes it."""
    tmp = temp_path(path)
    done = False
    try:
        yield tmp
        put(tmp, path)
        done = True
    finally:
        if not done:
            remove(tmp)
