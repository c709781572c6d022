"""Episodes of a dataset, addressed by path like any recording.

A dataset root (a LeRobot dataset, an EmbodiChain recorder root, an HDF5
file of demonstrations, or a Rerun ``.rrd`` holding several recordings)
holds many episodes. Each one is addressed by a path that names it inside
the root,
``<root>/episode_000003``: the playlist, Open Recent, ``--export-dir``, the
default output names and every command take it where they take a file, and
the registry hands it to the source that claims the root. The address never
exists on disk itself; a real file of that name wins.

The command line's ``DATASET --episode N`` becomes :func:`episode_path`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = [
    "EPISODE_PREFIX",
    "EpisodeEntry",
    "backing_path",
    "episode_path",
    "split_episode_path",
]

EPISODE_PREFIX: Final = "episode_"
"""What an episode address's last part starts with."""

_ADDRESS: Final = re.compile(r"^episode_([0-9]{1,9})$")


@dataclass(frozen=True)
class EpisodeEntry:
    """What a dataset's metadata says of one episode, before it is opened."""

    index: int
    frames: int
    duration_s: float
    task: str = ""
    problem: str = ""
    """Why the episode cannot be played as it is ('' when nothing is known wrong)."""


def episode_path(root: Path, index: int) -> Path:
    """Return the address of episode ``index`` of the dataset at ``root``."""
    return root / f"{EPISODE_PREFIX}{index:06d}"


def split_episode_path(path: Path) -> tuple[Path, int] | None:
    """Return ``(root, index)`` when ``path`` addresses an episode, else ``None``.

    It does when its last part is ``episode_<digits>``, nothing of that name
    exists and its parent is a folder or a regular file (an HDF5 file of
    demonstrations), not a symbolic link.
    """
    match = _ADDRESS.match(path.name)
    if match is None or path.is_symlink():
        return None
    root = path.parent
    if root.is_symlink() or not (root.is_dir() or root.is_file()):
        return None
    if root.is_dir() and path.exists():
        return None
    return root, int(match.group(1))


def backing_path(path: Path) -> Path:
    """Return what stands for ``path`` on disk: its dataset root for an episode."""
    found = split_episode_path(path)
    return path if found is None else found[0]
