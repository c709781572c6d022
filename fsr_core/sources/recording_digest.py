"""The digest of a recording as an index records it, episodes included.

An episode of a dataset (:mod:`fsr_core.sources.episodes`) has no bytes of its
own on disk: its digest is its dataset folder's tree digest, so a change to
the dataset marks every one of its episodes as changed.
"""

from __future__ import annotations

from pathlib import Path

from fsr_core.playlists.digests import Digest, digest_of
from fsr_core.playlists.index_file import IndexEntry, check_digest
from fsr_core.sources.episodes import backing_path

__all__ = ["recording_digest", "verify_indexed"]


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
