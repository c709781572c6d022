"""The user's own verdict on an entry: flagged, or kept despite the checks.

Key F and the overview's "flagged" box set it. It is remembered in the
user's settings (the window's ``QSettings``), never written into the
dataset, keyed by the dataset's identity: its folder (an episode's root, a
file's folder) and, where the dataset describes itself in
``meta/info.json`` (a LeRobot or EmbodiChain root), that file's SHA-256, so a
different dataset later written at the same place starts afresh. Inside the
dataset an entry is named by its address's last part (``episode_000003``,
``take.fsr``).

An entry with no verdict of the user's is flagged when the checks flag it.
"""

from __future__ import annotations

import hashlib
from enum import StrEnum
from pathlib import Path
from typing import Final

from PySide6.QtCore import QSettings

from fsr_core.errors import FsrError
from fsr_core.format.safe_open import open_source

__all__ = ["DESCRIPTION_FILE", "ManualFlags", "Verdict", "dataset_identity"]

DESCRIPTION_FILE: Final = "meta/info.json"
"""The file a dataset describes itself in (its digest is part of its identity)."""
#: The largest description file digested (a bigger one counts as absent).
_DESCRIPTION_BYTES: Final = 16 << 20
_GROUP: Final = "manual_flags"


class Verdict(StrEnum):
    """What the user said of an entry."""

    FLAGGED = "flagged"
    KEPT = "kept"


def dataset_identity(folder: Path) -> str:
    """Return the key the verdicts on the entries of ``folder`` are kept under."""
    key = str(folder.resolve())
    description = folder / DESCRIPTION_FILE
    try:
        source = open_source(description)
    except FsrError:
        return key
    try:
        if source.size > _DESCRIPTION_BYTES:
            return key
        data = source.read_at(0, source.size, section="dataset description")
    except FsrError:
        return key
    finally:
        source.close()
    return f"{key}#{hashlib.sha256(data).hexdigest()[:16]}"


class ManualFlags:
    """The user's verdicts, per dataset, in ``store``."""

    def __init__(self, store: QSettings) -> None:
        self._store = store
        self._identities: dict[Path, str] = {}

    def _identity(self, folder: Path) -> str:
        found = self._identities.get(folder)
        if found is None:
            found = self._identities[folder] = dataset_identity(folder)
        return found

    def _key(self, folder: Path, verdict: Verdict) -> str:
        # QSettings keys treat "/" and "\\" as groups: keep them in the value.
        identity = self._identity(folder).replace("/", "|").replace("\\", "|")
        return f"{_GROUP}/{identity}/{verdict.value}"

    def _members(self, folder: Path, verdict: Verdict) -> list[str]:
        value = self._store.value(self._key(folder, verdict))
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            return []
        return [item for item in value if isinstance(item, str) and item]

    def verdict(self, folder: Path, member: str) -> Verdict | None:
        """Return what the user said of ``member`` of ``folder`` (None: nothing)."""
        for verdict in Verdict:
            if member in self._members(folder, verdict):
                return verdict
        return None

    def set_verdict(self, folder: Path, member: str, verdict: Verdict | None) -> None:
        """Remember ``verdict`` on ``member`` of ``folder`` (None forgets it)."""
        for each in Verdict:
            members = [item for item in self._members(folder, each) if item != member]
            if each is verdict:
                members.append(member)
            key = self._key(folder, each)
            if members:
                self._store.setValue(key, sorted(members))
            else:
                self._store.remove(key)
        self._store.sync()
