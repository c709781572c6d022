"""Decode first in a child process what rerun-sdk is about to decode here.

rerun-sdk decodes chunks on worker threads of its own, where some damage (a
bit flipped in a chunk's arrow buffers) makes it panic, and a panic there
aborts the whole process instead of raising. :func:`probe_in_child` hands
each read to a child Python (:mod:`~fsr_core.sources.rerun.decode_probe`)
first: if rerun-sdk kills the child, the caller gets one line instead of
losing the process (the window, a batch worker). The child is started at
the first read and kept for the next ones, so the start of Python and the
import of rerun-sdk are paid once per process (and again only after an
abort); each read then costs its decode a second time. Never a fork of
this process, which deadlocks where threads run (the window's jobs).
``FSR_VIEWER_RERUN_GUARD=0`` reads without it.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Final

from fsr_core.errors import CorruptRecordError

__all__ = ["GUARD_VARIABLE", "probe_in_child"]

GUARD_VARIABLE: Final = "FSR_VIEWER_RERUN_GUARD"
"""Set to ``0`` to read without first decoding in a child process."""

_lock = threading.Lock()
_child: subprocess.Popen[str] | None = None
_child_pid = 0  # the process that started ``_child`` (a fork must not share it)


def _started() -> subprocess.Popen[str]:
    global _child, _child_pid
    if _child is None or _child_pid != os.getpid() or _child.poll() is not None:
        _child = subprocess.Popen(
            [sys.executable, "-m", "fsr_core.sources.rerun.decode_probe", "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, GUARD_VARIABLE: "0"},
            text=True,
            close_fds=True,
        )
        _child_pid = os.getpid()
        atexit.register(_stop, _child)
    return _child


def _stop(child: subprocess.Popen[str]) -> None:
    """Close the child's requests, so it ends, and wait for it."""
    if child.stdin is not None:
        child.stdin.close()
    try:
        child.wait(timeout=5)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    if child.stdout is not None:
        child.stdout.close()


def probe_in_child(
    path: Path, what: str, index: int, entity: str | None = None
) -> None:
    """Have the child read recording ``index`` of ``path`` first.

    It reads every chunk read at open (no ``entity``) or the frames of
    ``entity``. Any outcome but an abort leaves the reading to the caller,
    which meets and reports an ordinary error itself.

    Raises
    ------
    CorruptRecordError
        rerun-sdk aborted (or the child was killed) reading the chunks.
    """
    if os.environ.get(GUARD_VARIABLE) == "0":
        return
    request = json.dumps({"path": str(path), "index": index, "entity": entity})
    with _lock:
        child = _started()
        assert child.stdin is not None
        assert child.stdout is not None
        try:
            child.stdin.write(request + "\n")
            child.stdin.flush()
            answer = child.stdout.readline()
        except (BrokenPipeError, OSError):
            answer = ""
        if answer:
            return
        status = child.wait()
    if status < 0:
        raise CorruptRecordError(
            f"{what}: rerun-sdk aborted decoding a chunk (signal {-status}): "
            "the file is damaged",
            path=path,
        )
    raise CorruptRecordError(
        f"{what}: the child decoding it first ended (exit {status})", path=path
    )
