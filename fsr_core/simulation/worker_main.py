"""The command line of a simulator's child process: two paths in, a status out.

The simulators that run out of the viewer's process (skelarm, Genesis) start
``python -m`` on their worker module with two paths: the request, and where
the worker writes (a log, a folder of frames). A worker exits 0 when done,
:data:`EXIT_BAD_REQUEST` when its command line or request is not one it
reads, and :data:`EXIT_REFUSED` when the simulator itself refused the request.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

__all__ = ["EXIT_BAD_REQUEST", "EXIT_REFUSED", "bad_request", "worker_paths"]

EXIT_BAD_REQUEST: Final = 2
"""The command line or the request is not one the worker reads."""
EXIT_REFUSED: Final = 3
"""The simulator raised on the request (e.g. a config it cannot rebuild)."""


def worker_paths(argv: Sequence[str] | None, usage: str) -> tuple[Path, Path] | None:
    """Return the request and output paths of ``argv`` (default ``sys.argv[1:]``).

    Writes ``usage: worker USAGE`` to standard error and returns ``None`` when
    there are not exactly two arguments.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        sys.stderr.write(f"usage: worker {usage}\n")
        return None
    return Path(args[0]), Path(args[1])


def bad_request(reason: object) -> int:
    """Say on standard error why the request is bad; return :data:`EXIT_BAD_REQUEST`."""
    sys.stderr.write(f"bad request: {reason}\n")
    return EXIT_BAD_REQUEST
