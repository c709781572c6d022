"""Folders given where recordings are expected: one recording, or a playlist.

A folder that a source reads as one recording (a rosbag2 bag, later a
dataset root) stays one entry. Any other folder stands for the recordings it
holds directly: the regular files whose names match a registered source's
patterns, and the subfolders a source claims, in name order. Symbolic links
are not followed out of the folder, and at most :data:`MAX_FOLDER_ENTRIES`
entries are looked at, so a huge or hostile tree cannot stall the caller.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from fsr_core.errors import LimitExceededError, OpenFailedError
from fsr_core.sources.registry import folder_source, sources

__all__ = ["MAX_FOLDER_ENTRIES", "expand_recordings", "recordings_in"]

MAX_FOLDER_ENTRIES: Final = 100_000
"""Directory entries one folder may have for it to be listed."""


def _patterns() -> tuple[str, ...]:
    found: list[str] = []
    for source in sources():
        found.extend(pattern.lower() for pattern in source.patterns)
    return tuple(dict.fromkeys(found))


def recordings_in(folder: Path) -> list[Path]:
    """Return the recordings the folder stands for (itself, when it is one).

    Raises
    ------
    OpenFailedError
        The folder cannot be listed.
    LimitExceededError
        It has more than :data:`MAX_FOLDER_ENTRIES` entries.
    """
    if folder_source(folder) is not None:
        return [folder]
    patterns = _patterns()
    found: list[Path] = []
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_FOLDER_ENTRIES:
                    raise LimitExceededError(
                        f"folder has more than {MAX_FOLDER_ENTRIES:,} entries",
                        path=folder,
                    )
                if entry.name.startswith("."):
                    continue
                path = Path(entry.path)
                if entry.is_file(follow_symlinks=False):
                    name = entry.name.lower()
                    if any(fnmatch.fnmatch(name, pattern) for pattern in patterns):
                        found.append(path)
                elif entry.is_dir(follow_symlinks=False) and folder_source(path):
                    found.append(path)
    except OSError as exc:
        raise OpenFailedError(
            f"cannot list the folder: {exc.strerror or exc}", path=folder
        ) from exc
    return sorted(found, key=lambda path: path.name)


def expand_recordings(paths: Iterable[Path]) -> list[Path]:
    """Return ``paths`` with every plain folder replaced by its recordings."""
    expanded: list[Path] = []
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            expanded.extend(recordings_in(path))
        else:
            expanded.append(path)
    return expanded
