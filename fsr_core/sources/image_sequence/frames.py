"""The numbered frames of a folder, grouped into sequences by their prefix.

``rgb_0000.png``, ``rgb_0001.png`` ... are one sequence (``rgb``);
``distance_to_camera_0000.npy`` ... another; Blender's ``0001.png`` ... one
named after the folder. A sequence needs at least two frames. The folder is
listed once, at most :data:`MAX_FRAMES` entries, never recursively.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from fsr_core.errors import LimitExceededError, OpenFailedError

__all__ = [
    "FRAME_SUFFIXES",
    "MAX_FRAMES",
    "Sequence",
    "find_sequences",
]

FRAME_SUFFIXES: Final = ("png", "jpg", "jpeg", "tif", "tiff", "exr", "npy")
"""The endings of frame files (imageio reads all but ``npy``, which numpy reads)."""

MAX_FRAMES: Final = 1_000_000
"""Directory entries a folder may have for it to be listed."""

SNIFF_ENTRIES: Final = 4096
"""Entries :func:`find_sequences` looks at when it only sniffs."""

_FRAME: Final = re.compile(
    r"^(?P<prefix>.*?)(?P<number>[0-9]{1,12})\.(?P<suffix>"
    + "|".join(FRAME_SUFFIXES)
    + r")$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Sequence:
    """One camera's frames: its name, frame numbers and files, in number order."""

    name: str
    suffix: str
    numbers: tuple[int, ...]
    files: tuple[Path, ...]


def _name(prefix: str, folder: Path) -> str:
    return prefix.rstrip("_-. ") or folder.name


def find_sequences(folder: Path, *, sniff: bool = False) -> tuple[Sequence, ...]:
    """Return the folder's sequences of two or more frames, by name.

    With ``sniff``, only the first :data:`SNIFF_ENTRIES` entries are looked at.

    Raises
    ------
    OpenFailedError
        The folder cannot be listed.
    LimitExceededError
        It has more than :data:`MAX_FRAMES` entries.
    """
    found: dict[tuple[str, str], list[tuple[int, Path]]] = {}
    limit = SNIFF_ENTRIES if sniff else MAX_FRAMES
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= limit:
                    if sniff:
                        break
                    raise LimitExceededError(
                        f"folder has more than {MAX_FRAMES:,} entries", path=folder
                    )
                match = _FRAME.match(entry.name)
                if match is None or not entry.is_file(follow_symlinks=False):
                    continue
                key = (match.group("prefix"), match.group("suffix").lower())
                found.setdefault(key, []).append(
                    (int(match.group("number")), Path(entry.path))
                )
    except OSError as exc:
        raise OpenFailedError(
            f"cannot list the folder: {exc.strerror or exc}", path=folder
        ) from exc
    prefixes = [prefix for prefix, _ in found]
    sequences = []
    for (prefix, suffix), frames in sorted(found.items()):
        if len(frames) < 2:
            continue
        frames.sort()
        name = _name(prefix, folder)
        if prefixes.count(prefix) > 1:
            name = f"{name}.{suffix}"
        sequences.append(
            Sequence(
                name=name,
                suffix=suffix,
                numbers=tuple(number for number, _ in frames),
                files=tuple(path for _, path in frames),
            )
        )
    return tuple(sequences)
