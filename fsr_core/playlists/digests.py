r"""The size and SHA-256 of a recording on disk: a file, or a folder of files.

A file's digest is the SHA-256 of its bytes, read through
:func:`~fsr_core.format.safe_open.open_source` (a FIFO, device or final
symbolic link is refused, never read). A folder recording (a rosbag2 bag, a
dataset root) has a *tree digest*: the SHA-256 of one line per entry below it,
in sorted path order, ``<relative path>\0<size>\0<sha256 of the file>\n``
(a symbolic link gives ``<relative path>\0link\0<its target>\n`` and is
never followed), and its size is the sum of its files' sizes. At most
:data:`MAX_TREE_ENTRIES` entries are looked at.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from fsr_core.errors import LimitExceededError, OpenFailedError
from fsr_core.format.safe_open import open_source

__all__ = ["MAX_TREE_ENTRIES", "Digest", "digest_of"]

MAX_TREE_ENTRIES: Final = 100_000
"""Entries a folder recording may hold for its tree digest to be computed."""


@dataclass(frozen=True)
class Digest:
    """What an index records of a recording on disk."""

    size_bytes: int
    sha256: str
    kind: Literal["file", "folder"]


def digest_of(path: Path) -> Digest:
    """Return the size and SHA-256 of the file or folder at ``path``.

    Raises
    ------
    OpenFailedError
        ``path`` is missing or unreadable, is a FIFO, device or symbolic link,
        or a folder cannot be listed.
    LimitExceededError
        A folder holds more than :data:`MAX_TREE_ENTRIES` entries.
    """
    if path.is_dir() and not path.is_symlink():
        return _tree_digest(path)
    size, sha256 = _file_digest(path)
    return Digest(size, sha256, "file")


def _file_digest(path: Path) -> tuple[int, str]:
    source = open_source(path)
    try:
        return source.size, source.sha256()
    finally:
        source.close()


def _tree_digest(folder: Path) -> Digest:
    lines = hashlib.sha256()
    total = 0
    for relative in _tree_entries(folder):
        path = folder / relative
        name = relative.as_posix().encode("utf-8", "surrogateescape")
        if path.is_symlink():
            target = str(path.readlink()).encode("utf-8", "surrogateescape")
            lines.update(name + b"\0link\0" + target + b"\n")
            continue
        size, sha256 = _file_digest(path)
        total += size
        lines.update(name + b"\0" + str(size).encode() + b"\0" + sha256.encode())
        lines.update(b"\n")
    return Digest(total, lines.hexdigest(), "folder")


def _tree_entries(folder: Path) -> list[Path]:
    """Return every file and link below ``folder`` (relative, sorted), no folders."""
    found: list[Path] = []
    pending = [Path()]
    seen = 0
    while pending:
        relative = pending.pop()
        try:
            with os.scandir(folder / relative) as entries:
                for entry in entries:
                    seen += 1
                    if seen > MAX_TREE_ENTRIES:
                        raise LimitExceededError(
                            f"folder recording has more than {MAX_TREE_ENTRIES:,} "
                            "entries to digest",
                            path=folder,
                        )
                    child = relative / entry.name
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(child)
                    else:
                        found.append(child)
        except OSError as exc:
            raise OpenFailedError.from_os_error(
                "cannot list the folder to digest it", exc, folder / relative
            ) from exc
    return sorted(found, key=lambda path: path.parts)
