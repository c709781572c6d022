"""What verifying an MCAP file found, and what its data section defines.

:mod:`fsr_core.sources.mcap.verification` fills both while it walks the data
section; :mod:`fsr_core.sources.mcap.verification_summary` checks the summary
against the second.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["DataSection", "Verification"]

_MAX_PROBLEMS: Final = 1000
"""Problems kept: a file damaged throughout says so in the first thousand."""


@dataclass
class Verification:
    """What :func:`verify_file` found."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    records: int = 0
    """Records read and checked (those inside chunks included)."""

    def problem(self, offset: int, text: str) -> None:
        """Add a problem at byte ``offset`` (past the thousandth, none is kept)."""
        if len(self.problems) < _MAX_PROBLEMS:
            self.problems.append(f"byte {offset}: {text}")


@dataclass
class DataSection:
    """What the data section defines, for the summary's checks."""

    schemas: dict[int, tuple[str, str, bytes]] = field(default_factory=dict)
    channels: dict[int, tuple[int, str, str, dict[str, str]]] = field(
        default_factory=dict
    )
    chunks: dict[int, tuple[int, Any, frozenset[int]]] = field(default_factory=dict)
    """Chunk offset: record length, the chunk record, its channels."""
    attachments: dict[int, tuple[int, Any]] = field(default_factory=dict)
    metadata: dict[int, tuple[int, str]] = field(default_factory=dict)
    message_indexes: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Message index offset: its channel, the chunk before it."""
    unread_chunks: int = 0
    """Chunks whose records could not be read (the message counts are short)."""
    messages: int = 0
    per_channel: dict[int, int] = field(default_factory=dict)
    first_ns: int | None = None
    last_ns: int | None = None
    end: int = 0
    """Where DataEnd ends: the summary's start."""
