"""EmbodiChain recorder roots: the commit journal and the episode sidecar.

EmbodiChain's recorder writes a LeRobot dataset and beside it, per episode, a
journal record ``meta/embodichain_commits/<episode_uuid>.json`` that it
rewrites at each step of committing the episode:

``prepared`` → ``lerobot_committing`` → ``lerobot_committed`` →
``depth_committed`` → ``complete``

and, last, one line of ``meta/embodichain_episodes.jsonl`` (the sidecar row:
the episode's uuid, instruction, attempt and continuity ids, segments,
provenance, and where the run gave them candidate, commit and source ids and
validation checks). A crash leaves the journal at the last phase reached;
:data:`MISSING_AT` says what the episode lacks then. The recorder may store
the error that stopped it in the record's ``error`` field.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from fsr_core.errors import FsrError, LimitExceededError
from fsr_core.sources.lerobot.files import read_json, read_json_lines

__all__ = [
    "COMPLETE",
    "JOURNAL_DIR",
    "MAX_JOURNAL_RECORDS",
    "MISSING_AT",
    "PHASES",
    "SIDECAR_FILE",
    "Journal",
    "JournalRecord",
    "read_journal",
]

JOURNAL_DIR: Final = "meta/embodichain_commits"
SIDECAR_FILE: Final = "meta/embodichain_episodes.jsonl"
COMPLETE: Final = "complete"
PHASES: Final = (
    "prepared",
    "lerobot_committing",
    "lerobot_committed",
    "depth_committed",
    COMPLETE,
)
MISSING_AT: Final = {
    "prepared": "all of it (no frame was committed)",
    "lerobot_committing": "possibly its frames (the LeRobot write was under way)",
    "lerobot_committed": "its depth video and its sidecar row",
    "depth_committed": "its sidecar row",
}
"""What an episode whose journal stopped at a phase lacks."""

MAX_JOURNAL_RECORDS: Final = 1_000_000
"""Most journal records one root may hold."""


@dataclass(frozen=True)
class JournalRecord:
    """One episode's journal record."""

    episode_uuid: str
    phase: str
    index: int | None
    """The LeRobot episode index the sidecar row names (None: it names none)."""
    length: int
    instruction: str
    error: str
    depth_sensors: tuple[str, ...]
    updated_at: str
    sidecar: dict[str, Any] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Whether the episode was committed to the end."""
        return self.phase == COMPLETE

    @property
    def problem(self) -> str:
        """Why the episode is not complete ('' when it is)."""
        if self.complete:
            return ""
        text = f"recorder stopped at {self.phase}; missing {MISSING_AT[self.phase]}"
        return f"{text}; error: {self.error}" if self.error else text


@dataclass(frozen=True)
class Journal:
    """The journal and sidecar of a recorder root."""

    records: tuple[JournalRecord, ...]
    sidecar_rows: dict[int, dict[str, Any]]
    """Sidecar rows by LeRobot episode index."""
    problems: tuple[str, ...] = ()

    def for_episode(self, index: int) -> JournalRecord | None:
        """Return the journal record of LeRobot episode ``index``, if any."""
        for record in self.records:
            if record.index == index:
                return record
        return None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _record(path: Path) -> JournalRecord:
    raw = read_json(path)
    if not isinstance(raw, dict):
        raise FsrError("a journal record that is not a JSON object", path=path)
    phase = raw.get("phase")
    if phase not in PHASES:
        raise FsrError(
            f"journal phase {str(phase)[:40]!r} is not one of {PHASES}", path=path
        )
    sidecar = raw.get("sidecar") if isinstance(raw.get("sidecar"), dict) else {}
    assert isinstance(sidecar, dict)
    index = sidecar.get("lerobot_episode_index")
    length = sidecar.get("length")
    sensors = raw.get("depth_sensors")
    return JournalRecord(
        episode_uuid=_text(raw.get("episode_uuid")) or path.stem,
        phase=str(phase),
        index=index if isinstance(index, int) and index >= 0 else None,
        length=length if isinstance(length, int) and length >= 0 else 0,
        instruction=_text(sidecar.get("instruction")),
        error=_text(raw.get("error")),
        depth_sensors=tuple(str(s) for s in sensors)
        if isinstance(sensors, list)
        else (),
        updated_at=_text(raw.get("updated_at")),
        sidecar=sidecar,
    )


def _journal_files(folder: Path) -> list[Path]:
    found: list[Path] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith(".") or not entry.name.endswith(".json"):
                continue  # the recorder's temporary files start with a dot
            found.append(Path(entry.path))
            if len(found) > MAX_JOURNAL_RECORDS:
                raise LimitExceededError(
                    f"more than {MAX_JOURNAL_RECORDS:,} journal records", path=folder
                )
    return sorted(found)


def read_journal(root: Path) -> Journal | None:
    """Return the EmbodiChain journal of ``root`` (``None``: not a recorder root).

    A record or a sidecar that cannot be read is a problem of the journal, not
    an error: the rest still lists.
    """
    folder = root / JOURNAL_DIR
    if folder.is_symlink() or not folder.is_dir():
        return None
    problems: list[str] = []
    records: list[JournalRecord] = []
    try:
        files = _journal_files(folder)
    except OSError as exc:
        return Journal((), {}, (f"{folder}: cannot list: {exc.strerror or exc}",))
    for path in files:
        try:
            records.append(_record(path))
        except FsrError as exc:
            problems.append(str(exc))
    rows: dict[int, dict[str, Any]] = {}
    sidecar = root / SIDECAR_FILE
    if sidecar.exists():
        try:
            for row in read_json_lines(sidecar):
                index = row.get("lerobot_episode_index")
                if isinstance(index, int):
                    rows[index] = row
        except FsrError as exc:
            problems.append(str(exc))
    return Journal(tuple(records), rows, tuple(problems))
