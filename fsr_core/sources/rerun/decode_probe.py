"""Decode a recording's chunks in a process of its own: the abort guard's child.

``python -m fsr_core.sources.rerun.decode_probe PATH INDEX [ENTITY]`` opens
recording ``INDEX`` of ``PATH`` and reads what the window is about to read:
every chunk but the deferred cameras' (no ``ENTITY``), or one camera's frames.
It keeps nothing and says nothing; its exit says how it went: 0 read, 1 an
error the parent will meet and report itself, killed by a signal when
rerun-sdk aborted (:func:`~fsr_core.sources.rerun.library.probe_in_child`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from fsr_core.errors import FsrError
from fsr_core.sources.rerun.library import GUARD_VARIABLE
from fsr_core.sources.rerun.store import open_store


def main(argv: list[str] | None = None) -> int:
    """Read what the arguments name; return the exit status."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (2, 3) or not args[1].isdigit():
        return 2
    os.environ[GUARD_VARIABLE] = "0"  # this process is the guard
    try:
        store = open_store(Path(args[0]), int(args[1]))
        if len(args) == 3:
            store.read_entity(args[2])
        else:
            store.read_light()
    except FsrError:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
