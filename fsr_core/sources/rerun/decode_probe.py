"""The abort guard's child: decode a recording's chunks, keep nothing.

``python -m fsr_core.sources.rerun.decode_probe --serve`` reads requests,
one JSON line each (``path``, ``index``, ``entity``), from its standard input
until it closes; for each it opens recording ``index`` of ``path`` and reads
what the caller is about to read: every chunk but the deferred cameras' (no
``entity``), or one camera's frames. It answers one line: ``ok``, or
``error`` when the read raised one of the project's errors (the caller meets
it and reports it itself). When rerun-sdk aborts, the process dies, and the
caller (:func:`~fsr_core.sources.rerun.decode_guard.probe_in_child`) says so.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TextIO

from fsr_core.errors import FsrError
from fsr_core.sources.rerun.decode_guard import GUARD_VARIABLE
from fsr_core.sources.rerun.store import open_store


def _read(request: str) -> str:
    try:
        asked = json.loads(request)
        store = open_store(Path(str(asked["path"])), int(asked["index"]))
        if asked.get("entity") is None:
            store.read_light()
        else:
            store.read_entity(str(asked["entity"]))
    except (FsrError, ValueError, KeyError, TypeError, OSError):
        return "error"
    return "ok"


def serve(requests: TextIO, answers: TextIO) -> None:
    """Answer each request line of ``requests`` on ``answers``."""
    for request in requests:
        answers.write(_read(request) + "\n")
        answers.flush()


def main(argv: list[str] | None = None) -> int:
    """Serve requests on the standard streams; return the exit status."""
    args = sys.argv[1:] if argv is None else argv
    if args != ["--serve"]:
        return 2
    os.environ[GUARD_VARIABLE] = "0"  # this process is the guard
    serve(sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
