"""The index ``batch index`` publishes: its entries, from the run's results."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Any

from app.headless.batch.items import WorkItem
from fsr_core.playlists.index_file import IndexEntry

__all__ = ["index_entries"]


def index_entries(
    folder: Path, items: Sequence[WorkItem], results: Sequence[dict[str, Any]]
) -> list[IndexEntry]:
    """Return an entry per result that has one, in the items' order.

    Paths are written relative to ``folder`` (the index's) with ``/``.
    """
    by_input = {str(result["input"]): result for result in results}
    entries: list[IndexEntry] = []
    for item in items:
        result = by_input.get(str(item.input))
        fields = None if result is None else result.get("entry")
        if not isinstance(fields, dict):
            continue
        entries.append(_entry(folder, item.input, fields))
    return entries


def _entry(folder: Path, path: Path, fields: dict[str, Any]) -> IndexEntry:
    relative = os.path.relpath(os.path.realpath(path), os.path.realpath(folder))
    return IndexEntry(
        path=path,
        relative=PurePath(relative).as_posix(),
        size_bytes=int(fields["size_bytes"]),
        sha256=str(fields["sha256"]),
        digest_of=str(fields.get("digest_of", "file")),
        source=fields.get("source"),
        description=fields.get("description"),
        duration_s=fields.get("duration_s"),
        valid=fields.get("valid") is True,
        integrity=str(fields.get("integrity") or "invalid"),
        reason=str(fields.get("reason") or ""),
        facts=fields.get("facts") or {},
    )
