"""The hook through which a simulator shapes the model of its FSR recordings.

:func:`fsr_core.sources.fsr.load_fsr` builds the model every FSR file gets
(timeline, numeric channels, cameras, geometry, overlays, markers, integrity).
It then asks the simulator registry for the profile of the simulator that
recognises the file's metadata; the profile returns the model to show, the
generic one enriched (the planar arm's joint-angle channel, readouts and
kinematics) or replaced (a skelarm log converted to FSR opens as the log did).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from fsr_core.format.reader import FsrReader
from fsr_core.recording import Integrity, RecordingModel

__all__ = ["FsrOpening", "RecordingProfile"]


@dataclass(frozen=True)
class FsrOpening:
    """An FSR file being opened, as the FSR source knows it before any profile."""

    reader: FsrReader
    """The open file; it is closed once the model is built."""
    path: Path
    integrity: Integrity
    integrity_reason: str
    generic_model: Callable[[], RecordingModel]
    """Build the model every FSR file gets (only when the profile needs it)."""


@runtime_checkable
class RecordingProfile(Protocol):
    """What a simulator adds to, or changes in, the model of its recordings."""

    def build(self, opening: FsrOpening) -> RecordingModel:
        """Return the model of the file being opened.

        Raises
        ------
        FsrError
            The file's simulator-specific content is invalid (the playlist
            greys the file out with the message).
        """
        ...
