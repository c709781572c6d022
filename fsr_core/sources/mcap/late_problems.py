"""What reading a topic after the file opened found wrong, added to its report.

A file opened from its indexes reads a numeric topic's chunks only when its
channel is first shown, so a chunk that fails its CRC, or a message that does
not decode, can only be found then. :class:`LateProblems` adds each to the
report the model carries: the chunk to ``unreadable_chunks``, a line to
``notes``. Both are lists that are only ever appended to, so a view listing
the report while a worker reads a topic sees each entry whole.
"""

from __future__ import annotations

import threading
from typing import Any

from fsr_core.sources.mcap.container import Block

__all__ = ["LateProblems"]


class LateProblems:
    """The report's lists of unreadable chunks and notes, appended under a lock."""

    def __init__(self) -> None:
        self._unreadable: list[dict[str, Any]] = []
        self._notes: list[str] = []
        self._lock = threading.Lock()

    def attach(self, report: dict[str, Any]) -> None:
        """Append to ``report``'s ``unreadable_chunks`` and ``notes`` from now on."""
        with self._lock:
            unreadable: list[dict[str, Any]] = report["unreadable_chunks"]
            notes: list[str] = report["notes"]
            for item in self._unreadable:
                if not any(known["offset"] == item["offset"] for known in unreadable):
                    unreadable.append(item)
            notes.extend(self._notes)
            self._unreadable, self._notes = unreadable, notes

    def unreadable_chunk(self, block: Block, reason: str) -> None:
        """Add a chunk that could not be read (once, however many topics find it)."""
        with self._lock:
            if any(item["offset"] == block.offset for item in self._unreadable):
                return
            self._unreadable.append({"offset": block.offset, "reason": reason})
            self._notes.append(
                f"chunk at byte {block.offset} unreadable when its topic was read: "
                f"{reason}"
            )

    def failed_messages(self, topic: str, count: int, first: str) -> None:
        """Add a note of the messages of ``topic`` that did not decode."""
        with self._lock:
            self._notes.append(
                f"topic {topic[:80]!r}: {count} message(s) did not decode; "
                f"the first: {first}"
            )
