"""From the command line's paths to the work items of a batch run.

A path is a recording (a file, a folder a source reads as one, an episode
address), a folder, or a playlist index:

- a file holding several recordings (a Rerun ``.rrd``) stands for each;
- a folder is searched, depth first in name order, for the recordings of
  every registered source (:func:`~fsr_core.sources.recordings_in` at each
  level: a dataset stands for its episodes, a bag for itself); hidden entries
  and symbolic links are skipped, so the search never leaves the folder;
- an index stands for its entries, each checked against its recorded digest;
- a path that does not exist, a folder without recordings and an index that
  cannot be read are items of their own, reported as failed.

The same recording named twice is one item. Outputs go to ``--out`` under the
recording's name; names that collide get their folder's name in front, then a
number.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Final

from app.headless.batch.items import Verb, WorkItem
from fsr_core.errors import FsrError
from fsr_core.playlists.index_file import IndexEntry, looks_like_index, read_index
from fsr_core.playlists.real2sim_index import (
    Real2SimEpisode,
    looks_like_real2sim,
    read_real2sim,
)
from fsr_core.sources import (
    file_recordings,
    recording_stem,
    recordings_in,
    split_episode_path,
)
from fsr_core.sources.registry import folder_source

__all__ = ["MAX_DEPTH", "MAX_ITEMS", "output_suffix", "plan_items"]

MAX_ITEMS: Final = 1_000_000
"""Recordings one run may hold (a folder search stops there)."""
MAX_DEPTH: Final = 32
"""Folder levels a search goes down."""

# recording, what a playlist file pins of it, problem
_Found = tuple[Path, IndexEntry | Real2SimEpisode | None, str]


def plan_items(
    verb: Verb,
    paths: Sequence[Path],
    *,
    out_dir: Path | None = None,
    suffix: str = "",
    index_folder: Path | None = None,
    overwrite: bool = False,
) -> list[WorkItem]:
    """Return one work item per recording the paths stand for, in order.

    ``out_dir`` and ``suffix`` make each writing verb's output name,
    ``DIR/<name><suffix>`` (an empty ``suffix``: :func:`output_suffix` of
    each input). ``index_folder`` is the folder of the index
    ``batch index`` writes: a recording outside it cannot be listed.
    ``overwrite`` lets each output replace an existing file (``--overwrite``).
    """
    found = _unique(found for path in paths for found in _recordings(path))
    names = _output_names([path for path, _, _ in found])
    items: list[WorkItem] = []
    for number, (path, entry, problem) in enumerate(found):
        output = None
        if verb.writes_files and out_dir is not None and not problem:
            output = out_dir / f"{names[number]}{suffix or output_suffix(path)}"
        if index_folder is not None and not problem:
            problem = _outside(path, index_folder)
        indexed = entry if isinstance(entry, IndexEntry) else None
        pinned = entry if isinstance(entry, Real2SimEpisode) else None
        items.append(
            WorkItem(
                number,
                path,
                output,
                overwrite,
                expected=indexed,
                pinned=pinned,
                problem=problem,
            )
        )
    return items


def output_suffix(path: Path) -> str:
    """Return ``.resim`` and the input's own ending: a replay keeps its kind."""
    ending = path.name[len(recording_stem(path)) :] if path.is_file() else ""
    return f".resim{ending or '.fsr'}"


def _recordings(path: Path) -> Iterator[_Found]:
    if not os.path.lexists(path) and split_episode_path(path) is None:
        yield path, None, f"{path}: no such file or folder"
    elif looks_like_index(path):
        yield from _listed(path, _index_entries)
    elif looks_like_real2sim(path):
        yield from _listed(path, _replay_entries)
    elif path.is_dir() and not path.is_symlink():
        yield from _searched(path)
    elif path.is_file() and not path.is_symlink():
        # A file of episodes (an HDF5 file of demos, an .rrd of several
        # recordings) stands for them.
        yield from ((found, None, "") for found in file_recordings(path))
    else:
        yield path, None, ""


_Pins = IndexEntry | Real2SimEpisode


def _index_entries(path: Path) -> list[tuple[Path, _Pins]]:
    return [(entry.path, entry) for entry in read_index(path).entries]


def _replay_entries(path: Path) -> list[tuple[Path, _Pins]]:
    return [(episode.path, episode) for episode in read_real2sim(path).episodes]


def _listed(
    path: Path, entries: Callable[[Path], list[tuple[Path, _Pins]]]
) -> Iterator[_Found]:
    """Yield what a playlist file lists, with what it pins; a bad file is an item."""
    try:
        listed = entries(path)
    except FsrError as exc:
        yield path, None, str(exc)
        return
    for recording, pinned in listed:
        yield recording, pinned, ""


def _searched(folder: Path) -> Iterator[_Found]:
    count = 0
    for path, problem in _walk(folder, 0):
        count += 1
        yield path, None, problem
        if count >= MAX_ITEMS:
            return
    if count == 0:
        yield folder, None, f"{folder}: no recordings found in the folder"


def _walk(folder: Path, depth: int) -> Iterator[tuple[Path, str]]:
    """Yield the recordings below ``folder``; a folder that fails is an item."""
    try:
        listed = recordings_in(folder)
        searched = depth < MAX_DEPTH and folder_source(folder) is None
        subfolders = _plain_subfolders(folder) if searched else []
    except FsrError as exc:
        yield folder, str(exc)
        return
    yield from ((path, "") for path in listed)
    for subfolder in subfolders:
        yield from _walk(subfolder, depth + 1)


def _plain_subfolders(folder: Path) -> list[Path]:
    """Return the subfolders no source claims (to search), not following links."""
    try:
        with os.scandir(folder) as entries:
            found = [
                Path(entry.path)
                for entry in entries
                if not entry.name.startswith(".")
                and entry.is_dir(follow_symlinks=False)
            ]
    except OSError:
        return []  # recordings_in has just listed it: a race, nothing to add
    return sorted(path for path in found if folder_source(path) is None)


def _unique(found: Iterator[_Found]) -> list[_Found]:
    seen: set[str] = set()
    kept: list[_Found] = []
    for item in found:
        key = os.path.realpath(item[0])
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def _output_names(paths: list[Path]) -> list[str]:
    """Return each path's output name: its stem, made unique among the paths."""
    stems = [recording_stem(path) for path in paths]
    counts = Counter(stems)
    names = [
        f"{path.parent.name}-{stem}" if counts[stem] > 1 and path.parent.name else stem
        for path, stem in zip(paths, stems, strict=True)
    ]
    taken: Counter[str] = Counter()
    unique: list[str] = []
    for name in names:
        taken[name] += 1
        unique.append(name if taken[name] == 1 else f"{name}-{taken[name]}")
    return unique


def _outside(path: Path, folder: Path) -> str:
    home = os.path.realpath(folder).rstrip(os.sep) + os.sep
    if os.path.realpath(path).startswith(home):
        return ""
    return (
        f"{path}: outside the index's folder {folder}; an index lists only "
        "the recordings below it"
    )
