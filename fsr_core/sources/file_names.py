"""Recording file names as every registered source knows them.

File dialogs list the patterns of every source, and output names are made by
taking a source's ending off the input's name (``run.sklog.npz`` gives
``run``), so no command or window spells out another source's file ending.
"""

from __future__ import annotations

from pathlib import Path

from fsr_core.playlists.episodes import split_episode_path
from fsr_core.sources.registry import sources

__all__ = ["open_dialog_filter", "recording_stem", "recording_suffixes"]


def recording_suffixes() -> tuple[str, ...]:
    """Return every ending a source's ``*.ext`` patterns give, longest first."""
    found = {
        pattern[1:].lower()
        for source in sources()
        for pattern in source.patterns
        if pattern.startswith("*.") and "*" not in pattern[1:]
    }
    return tuple(sorted(found, key=lambda suffix: (-len(suffix), suffix)))


def recording_stem(path: Path) -> str:
    """Return ``path``'s name without its recording ending (else its stem).

    An episode of a dataset gives ``<dataset>_episode_000003``, so the
    episodes of several datasets never share a name.
    """
    episode = split_episode_path(path)
    if episode is not None:
        root = episode[0]
        owner = recording_stem(root) if root.is_file() else root.name
        return f"{owner}_{path.name}"
    name = path.name
    for suffix in recording_suffixes():
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return path.stem or name


def open_dialog_filter() -> str:
    """Return a Qt file-dialog filter: all recordings, then each source's files."""
    every = " ".join(
        dict.fromkeys(pattern for source in sources() for pattern in source.patterns)
    )
    each = [
        f"{source.description} ({' '.join(source.patterns)})"
        for source in sources()
        if source.patterns  # a source of folders only has nothing to pick here
    ]
    return ";;".join([f"Recordings ({every})", *each, "All files (*)"])
