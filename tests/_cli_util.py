"""Shared helper for the CLI interrupt tests (not a test module): run ``tractor`` in a child,
wait for its progress line, press Ctrl-C, and return what it printed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from typing import Dict, Optional, Tuple


def _reset_sigint() -> None:
    # A child started from a shell that ignores SIGINT would inherit SIG_IGN and Python would
    # then not install its KeyboardInterrupt handler: restore the default before exec.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class StderrWatch:
    """Reads a child's stderr in a thread (``err``, all of it so far) and sets ``seen[m]`` once
    ``m`` has appeared, for each marker ``m``."""

    def __init__(self, proc, *markers: bytes) -> None:
        self.proc, self.err = proc, bytearray()
        self.seen = {m: threading.Event() for m in markers}
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            b = os.read(self.proc.stderr.fileno(), 4096)
            if not b:
                return
            self.err.extend(b)
            for m, ev in self.seen.items():
                if m in self.err:
                    ev.set()

    def join(self) -> bytes:
        self.thread.join(5)
        return bytes(self.err)


def start_cli(args, cwd, env: Optional[Dict[str, str]] = None):
    """``python -m tractor.cli *args`` in a child, its outputs piped, SIGINT at its default."""
    return subprocess.Popen(
        [sys.executable, "-m", "tractor.cli", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=_reset_sigint, env=env,
    )


def interrupt_cli(args, cwd, wait_s: float, env: Optional[Dict[str, str]] = None,
                  marker: bytes = b"hands/s") -> Tuple[int, str, bytes]:
    """Starts ``python -m tractor.cli *args``, sends SIGINT once it has printed a rate
    (``marker``), and returns (exit code, stdout, stderr)."""
    proc = start_cli(args, cwd, env)
    watch = StderrWatch(proc, marker)
    err = watch.err
    progressed = watch.seen[marker]
    try:
        assert progressed.wait(wait_s), f"no progress printed: {bytes(err)[-2000:]!r}"
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=max(60, wait_s * 2 / 3))  # stops after the current chunk; a short summary fits the pipe
        out = proc.stdout.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out, watch.join()


def hands_summarised(out: str) -> int:
    """The ``hands`` row of a summary."""
    m = re.search(r"^hands\s+([\d,]+)$", out, re.M)
    assert m, out
    return int(m.group(1).replace(",", ""))
