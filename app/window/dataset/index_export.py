"""Export the kept or the flagged entries as a playlist index, and LeRobot's command.

:class:`IndexExportJob` lists the chosen entries in an ``fsr-viewer-index/1``
file (docs/index-format.md) with what ``batch index`` records of each: its
size and SHA-256 (a dataset episode's: its dataset folder's, digested once
per folder), source, duration, validity and key facts, from the same
``inspect --verify`` report. It runs off the GUI thread and publishes the
index atomically, never over an existing file (:func:`write_index`). An
index inside a dataset it lists is refused: it would change that dataset's
folder digest, and so every entry's.

:func:`delete_episodes_command` is the ``lerobot-edit-dataset`` command
that writes a copy of a LeRobot dataset without the flagged episodes.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePath
from typing import Final

from app.headless.batch.facts import first_problem, key_facts
from app.headless.verified_report import verified_report
from app.window.workers.background_job import BackgroundJob, Ended
from fsr_core.errors import FsrError, IndexFileError
from fsr_core.playlists.digests import Digest
from fsr_core.playlists.episodes import backing_path
from fsr_core.playlists.index_file import IndexEntry, write_index
from fsr_core.playlists.pinned import recording_digest
from fsr_core.sources import OpenOptions

__all__ = [
    "GENERATOR",
    "ExportedIndex",
    "IndexExportJob",
    "check_index_place",
    "delete_episodes_command",
]

GENERATOR: Final = "fsr-viewer Dataset overview"
"""The index's ``generator``."""


@dataclass(frozen=True)
class ExportedIndex:
    """What was written: where, and how many entries."""

    path: Path
    count: int


def _inside(path: Path, folder: Path) -> bool:
    real, home = os.path.realpath(path), os.path.realpath(folder)
    return real == home or real.startswith(home.rstrip(os.sep) + os.sep)


def check_index_place(output: Path, paths: Sequence[Path]) -> None:
    """Refuse an index at ``output`` that cannot list ``paths``.

    Raises
    ------
    IndexFileError
        ``output`` is inside a dataset folder it lists, or an entry is not
        below ``output``'s folder (an index names its recordings relative to
        its own folder, docs/index-format.md).
    """
    folder = output.parent
    for path in paths:
        backing = backing_path(path)
        if backing.is_dir() and _inside(output, backing):
            raise IndexFileError(
                f"an index inside the dataset {backing} would change the digest "
                "of every episode it lists; save it outside the dataset",
                path=output,
            )
        if not _inside(path, folder):
            raise IndexFileError(
                f"{path} is not below the index's folder {folder}; an index "
                "lists recordings relative to its own folder: save it in a "
                "folder that holds them",
                path=output,
            )


class IndexExportJob(BackgroundJob):
    """List ``paths`` in a new index at ``output``; Cancel stops between two."""

    expected_errors = (ValueError,)

    def __init__(
        self, output: Path, paths: Sequence[Path], options: OpenOptions
    ) -> None:
        super().__init__((output, *paths))
        self.output = output
        self.paths = tuple(paths)
        self._options = options

    def work(self) -> object:
        """Describe each entry, then publish the index."""
        check_index_place(self.output, self.paths)
        digests: dict[Path, Digest] = {}
        entries: list[IndexEntry] = []
        total = len(self.paths)
        for done, path in enumerate(self.paths):
            if self.cancel_requested:
                return Ended(f"index export cancelled after {done} of {total}")
            self.report_progress(done, total)
            backing = backing_path(path)
            digest = digests.get(backing)
            if digest is None:
                digest = digests[backing] = recording_digest(path)
            entries.append(self._entry(path, digest))
        self.report_progress(total, total)
        created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        write_index(self.output, entries, generator=GENERATOR, created_utc=created)
        return ExportedIndex(self.output, len(entries))

    def _entry(self, path: Path, digest: Digest) -> IndexEntry:
        relative = os.path.relpath(
            os.path.realpath(path), os.path.realpath(self.output.parent)
        )
        fields: dict[str, object]
        try:
            report = verified_report(path, self._options)
        except FsrError as exc:
            fields = {"valid": False, "integrity": "invalid", "reason": str(exc)}
        else:
            fields = key_facts(report)
            if not fields["valid"]:
                fields["reason"] = first_problem(report, path)
        facts = fields.get("facts")
        duration = fields.get("duration_s")
        return IndexEntry(
            path=path,
            relative=PurePath(relative).as_posix(),
            size_bytes=digest.size_bytes,
            sha256=digest.sha256,
            digest_of=digest.kind,
            source=_text_or_none(fields.get("source")),
            description=_text_or_none(fields.get("description")),
            duration_s=float(duration) if isinstance(duration, int | float) else None,
            valid=fields.get("valid") is True,
            integrity=str(fields.get("integrity") or "invalid"),
            reason=str(fields.get("reason") or ""),
            facts=facts if isinstance(facts, dict) else {},
        )


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def delete_episodes_command(root: Path, episodes: Sequence[int]) -> str:
    """Return the command that copies the dataset at ``root`` without ``episodes``.

    The copy goes beside it (``<name>_kept``); the dataset itself is left as
    it is. ``--repo_id`` names the dataset by its folder, as lerobot does a
    local dataset under ``--root``.
    """
    root = root.resolve()
    name = root.name
    kept = root.with_name(f"{name}_kept")
    indices = "[" + ", ".join(str(index) for index in sorted(set(episodes))) + "]"
    words = [
        "lerobot-edit-dataset",
        "--repo_id",
        name,
        "--root",
        str(root),
        "--new_repo_id",
        f"{name}_kept",
        "--new_root",
        str(kept),
        "--operation.type",
        "delete_episodes",
        "--operation.episode_indices",
        indices,
    ]
    return shlex.join(words)
