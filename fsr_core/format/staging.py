"""The names of the FSR writer's staging files, read by whoever looks for them.

:class:`~fsr_core.format.writer.FsrWriter` writes ``<final>`` as a hidden
staging file ``.<final name>.<12 hex digits>.fsr-staging`` in the same folder
and links it to the final name once sealed. A reader that wants to watch a
recording before it is published finds its staging file here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

__all__ = ["STAGING_SUFFIX", "final_name_of", "is_staging", "staging_files_for"]

STAGING_SUFFIX: Final = ".fsr-staging"
_STAGING: Final = re.compile(r"^\.(?P<final>.+)\.[0-9a-f]{12}\.fsr-staging$")


def is_staging(path: Path) -> bool:
    """Whether ``path`` is named as a writer's staging file."""
    return _STAGING.match(path.name) is not None


def final_name_of(path: Path) -> Path | None:
    """Return the final name a staging file is published as (None: not staging)."""
    found = _STAGING.match(path.name)
    return None if found is None else path.with_name(found["final"])


def staging_files_for(final: Path) -> list[Path]:
    """Staging files of ``final`` in its folder, newest first."""
    folder = final.parent
    try:
        names = [
            p
            for p in folder.glob(f".{final.name}.*{STAGING_SUFFIX}")
            if final_name_of(p) == final
        ]
    except OSError:
        return []
    stamped = []
    for name in names:
        try:
            stamped.append((name.stat().st_mtime, name))
        except OSError:
            continue
    return [p for _, p in sorted(stamped, reverse=True)]
