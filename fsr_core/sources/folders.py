"""Folders given where recordings are expected: one recording, or a playlist.

A folder that a source reads as one recording (a rosbag2 bag) stays one
entry; a dataset root, or a file holding several recordings (a Rerun
``.rrd``), stands for its episodes (their addresses, see
:mod:`fsr_core.playlists.episodes`). Any other folder stands for the recordings it
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

from fsr_core.errors import FsrError, LimitExceededError, OpenFailedError
from fsr_core.playlists.episodes import episode_path
from fsr_core.playlists.index_file import looks_like_index, read_index
from fsr_core.playlists.real2sim_index import looks_like_real2sim, read_real2sim
from fsr_core.sources.registry import (
    EpisodeSource,
    episode_file_source,
    folder_source,
    sources,
)

__all__ = [
    "MAX_FOLDER_ENTRIES",
    "expand_recordings",
    "file_recordings",
    "recordings_in",
]

MAX_FOLDER_ENTRIES: Final = 100_000
"""Directory entries one folder may have for it to be listed."""


def _patterns() -> tuple[str, ...]:
    found: list[str] = []
    for source in sources():
        found.extend(pattern.lower() for pattern in source.patterns)
    return tuple(dict.fromkeys(found))


def _folder_recordings(folder: Path) -> list[Path]:
    """Return what a subfolder adds: a dataset's episodes, a bag, or nothing."""
    owner = folder_source(folder)
    if isinstance(owner, EpisodeSource):
        return [episode_path(folder, entry.index) for entry in owner.episodes(folder)]
    return [] if owner is None else [folder]


def file_recordings(path: Path) -> list[Path]:
    """Return the recordings a file stands for: its own, or each it holds.

    A file of episodes (an HDF5 file of demos) stands for their addresses;
    so does a file that is one recording by itself when it holds more than
    one (a Rerun ``.rrd`` of several recordings; one alone stays the file).
    A file whose episodes cannot be listed stands as itself, so opening it
    says what is wrong while the rest plays.
    """
    try:
        owner = episode_file_source(path)
        if owner is None:
            return [path]
        entries = owner.episodes(path)
        whole = owner.sniff_folder(path)  # the file opens as a recording itself
    except FsrError:
        return [path]
    if not entries or (whole and len(entries) == 1):
        return [path]
    return [episode_path(path, entry.index) for entry in entries]


def _listed_or_itself(folder: Path) -> list[Path]:
    """Return a subfolder's recordings, or the subfolder when it cannot be listed.

    A dataset whose metadata is broken stands as itself, so opening it says
    what is wrong while the rest plays.
    """
    try:
        return _folder_recordings(folder)
    except FsrError:
        return [folder]


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
        return _folder_recordings(folder)
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
                        found.extend(file_recordings(path))
                elif entry.is_dir(follow_symlinks=False):
                    found.extend(_listed_or_itself(path))
    except OSError as exc:
        raise OpenFailedError(
            f"cannot list the folder: {exc.strerror or exc}", path=folder
        ) from exc
    return sorted(found, key=lambda path: path.relative_to(folder).parts)


def expand_recordings(paths: Iterable[Path]) -> list[Path]:
    """Return ``paths`` with every plain folder and index replaced by its recordings.

    Raises
    ------
    IndexFileError
        An index among ``paths`` is malformed (:func:`read_index`).
    """
    expanded: list[Path] = []
    for path in paths:
        if looks_like_index(path):  # a playlist index: its recordings, in order
            expanded.extend(entry.path for entry in read_index(path).entries)
        elif looks_like_real2sim(path):  # EmbodiChain's replay index: its episodes
            expanded.extend(episode.path for episode in read_real2sim(path).episodes)
        elif path.is_dir() and not path.is_symlink():
            expanded.extend(recordings_in(path))
        elif path.is_file() and not path.is_symlink():
            expanded.extend(file_recordings(path))
        else:
            expanded.append(path)
    return expanded
