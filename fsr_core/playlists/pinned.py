"""What a playlist file pins of each recording, and its digest, episodes included.

An ``fsr-viewer-index`` pins each recording's size and SHA-256, a
``real2sim-replay/v1`` index each episode's artifacts; :func:`pinned_entries`
gives both as :class:`Pinned` entries, which the window and ``batch`` verify
before a recording is opened.

An episode of a dataset (:mod:`fsr_core.playlists.episodes`) has no bytes of its
own on disk: its digest is its dataset folder's tree digest, so a change to
the dataset marks every one of its episodes as changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from fsr_core.playlists.digests import Digest, digest_of
from fsr_core.playlists.episodes import backing_path
from fsr_core.playlists.index_file import IndexEntry, check_digest, indexed_entries
from fsr_core.playlists.real2sim_index import real2sim_episodes

__all__ = [
    "IndexedRecording",
    "Pinned",
    "pinned_entries",
    "recording_digest",
    "verify_indexed",
]


def recording_digest(path: Path) -> Digest:
    """Return the size and SHA-256 of the recording ``path`` (file, folder, episode).

    Raises
    ------
    OpenFailedError
        The recording is missing, unreadable or not a regular file or folder.
    LimitExceededError
        A folder recording has too many entries to digest.
    """
    return digest_of(backing_path(path))


def verify_indexed(entry: IndexEntry) -> Digest:
    """Return the recording's digest once sure that it is the one ``entry`` recorded.

    Raises
    ------
    DigestMismatchError
        Its size or SHA-256 changed since it was indexed.
    OpenFailedError
        It is missing or unreadable now.
    """
    found = recording_digest(entry.path)
    check_digest(entry, found)
    return found


@runtime_checkable
class Pinned(Protocol):
    """A recording a playlist file pins: checked before it is opened."""

    @property
    def path(self) -> Path:
        """The recording (a file, a folder or an episode address)."""
        ...

    @property
    def facts(self) -> dict[str, Any]:
        """What the playlist file says of it, for the inspector ({} for none)."""
        ...

    def verify(self) -> None:
        """Refuse a recording that is not the one the playlist file pinned.

        Raises
        ------
        FsrError
            It changed, or it (or a pinned artifact) is missing.
        """
        ...


@dataclass(frozen=True)
class IndexedRecording:
    """A recording of an ``fsr-viewer-index``: its size and SHA-256 are pinned."""

    entry: IndexEntry
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        """The recording."""
        return self.entry.path

    def verify(self) -> None:
        """Refuse the recording when its digest changed (:func:`verify_indexed`)."""
        verify_indexed(self.entry)


def pinned_entries(paths: Iterable[Path]) -> dict[Path, Pinned]:
    """Return what every playlist file among ``paths`` pins, by recording.

    Both kinds count: ``fsr-viewer-index`` files and ``real2sim-replay/v1``
    indexes.

    Raises
    ------
    IndexFileError
        A playlist file among ``paths`` is malformed.
    """
    given = list(paths)
    found: dict[Path, Pinned] = {
        path: IndexedRecording(entry) for path, entry in indexed_entries(given).items()
    }
    found.update(real2sim_episodes(given))
    return found
