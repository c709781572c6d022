"""How a recording is to be opened: options a source may read and others ignore.

:class:`OpenOptions` travels with every open, inspection and conversion
(:func:`fsr_core.sources.open_recording` and its siblings). A source that
reads some of them names them in its ``open_options`` attribute (the MCAP
source: ``("time_base",)``) and takes ``options=`` in ``open`` (and in
``inspect`` and ``to_fsr`` when it has them); any other source is opened as
before, so a plugin written before options existed keeps working and a
playlist mixing kinds opens every file with the same options.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Final

from fsr_core.errors import SchemaError
from fsr_core.robots import RobotRequest

__all__ = [
    "MAX_TIME_BASE_CHARS",
    "TIME_BASES",
    "TIME_BASE_NAMES",
    "OpenOptions",
    "message_time_base",
    "valid_time_base_name",
]

TIME_BASES: Final = ("log", "publish", "header")
"""The times that can place a logged message of an MCAP log on the timeline.
A Rerun recording offers its own timelines by name instead."""

MAX_TIME_BASE_CHARS: Final = 200
"""Longest time base name (a Rerun timeline's name)."""

TIME_BASE_NAMES: Final = {
    "log": "log time",
    "publish": "publish time",
    "header": "header stamp",
}
"""What each time base is called, for people."""


def valid_time_base_name(name: str) -> bool:
    """Whether ``name`` could name a time base: printable, 1 to 200 characters."""
    return 0 < len(name) <= MAX_TIME_BASE_CHARS and name.isprintable()


@dataclass(frozen=True)
class OpenOptions:
    """What the user chose about how recordings open (``None``: the default).

    Raises
    ------
    ValueError
        ``time_base`` is empty, too long or not printable, or ``fps`` is not
        a positive number (a programmer error: the command line checks both).
    """

    time_base: str | None = None
    """Which time places each message of a message log (MCAP): its ``log`` time
    (when the recorder wrote it), its ``publish`` time (when it was sent) or its
    ``header`` stamp (when the data were taken; a message without one stays at
    its log time); for a Rerun recording, the name of one of its timelines.
    A source refuses a name it does not offer. ``None``: the source's default."""
    provisional: bool | None = None
    """``True`` (the window): a source may return at once a model built before
    every check, :attr:`~fsr_core.recording.RecordingModel.refine` giving the
    checked one (the Genesis source: from the record headers alone). ``None``
    or ``False``: the checked model."""
    robot: RobotRequest | None = None
    """A robot description to draw the recording with (``--robot``), posed by
    its recorded joints; applied to the model every source opens."""
    package_paths: tuple[Path, ...] | None = None
    """``--package-path`` folders, for the meshes of a robot description the
    recording carries (an MCAP's ``/robot_description``)."""
    fps: float | None = None
    """Frames (or steps) per second of a recording that does not time its own
    rows (``--fps``): an image-sequence folder without a timestamps file, an
    HDF5 dataset whose control frequency is unknown or to be overridden.
    ``None``: the recording's own time, else the source's default."""

    def __post_init__(self) -> None:
        """Refuse a time base name no source could offer, or a rate not positive."""
        base = self.time_base
        if base is not None and not valid_time_base_name(base):
            raise ValueError(f"time base {base[:80]!r}: not a timeline name")
        if self.fps is not None and not 0 < self.fps < 1e6:
            raise ValueError(f"fps {self.fps!r}: expected a positive rate")

    def given(self) -> frozenset[str]:
        """Return the names of the options set (not left to the default)."""
        return frozenset(
            item.name for item in fields(self) if getattr(self, item.name) is not None
        )


def message_time_base(
    options: OpenOptions | None, recording: str, path: Path
) -> str | None:
    """Return the time base ``options`` give a message log (``None``: the default).

    ``recording`` says what the log is, for the error (``"an MCAP log"``).

    Raises
    ------
    SchemaError
        The time base is none of :data:`TIME_BASES` (a Rerun timeline's name).
    """
    base = None if options is None else options.time_base
    if base is not None and base not in TIME_BASES:
        raise SchemaError(
            f"time base {base[:80]!r}: {recording} is placed by "
            f"{', '.join(TIME_BASES)}",
            path=path,
        )
    return base
