"""What a panel row is: a provider that applies to a recording and gives lines.

A *panel row* is one readout of the side panel (the window's and the one
exports composite beside the scene): the play time, the joints, the tip, the
recorded force... A provider says whether a recording has it
(:meth:`PanelRow.applies`, asked once per file) and what it shows at a play
time (:meth:`PanelRow.value_at`): text lines, and for the joints each joint's
angle within its limits. Both panels draw the rows of
:mod:`app.canvas.panel_rows.registry` that apply, in its order, so they show
the same rows. Plain Python and numpy, no Qt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Final, Protocol

from app.canvas.shown_text import fixed_text
from fsr_core.arrays import FloatArray
from fsr_core.recording import RecordingModel

__all__ = [
    "MISSING_TEXT",
    "JointValue",
    "LineStyle",
    "Moment",
    "PanelRow",
    "RowLine",
    "RowValue",
    "Section",
    "degrees_text",
    "labelled",
]

#: What a row says while its value is unknown at the play time.
MISSING_TEXT: Final = "—"


class LineStyle(StrEnum):
    """How a panel draws a line: the play time large, clocks muted."""

    TITLE = "title"
    BODY = "body"
    MUTED = "muted"


class Section(StrEnum):
    """A group of rows; panels draw a divider where the section changes."""

    CLOCK = "clock"
    JOINTS = "joints"
    READOUTS = "readouts"


@dataclass(frozen=True)
class RowLine:
    """One line of a row: its text (plain, made safe to show) and style.

    ``wrap``: the window may wrap the line over several lines (a long task);
    else it elides what does not fit, as the exported panel always does.
    """

    text: str
    style: LineStyle = LineStyle.BODY
    wrap: bool = False


@dataclass(frozen=True)
class JointValue:
    """One joint's angle and its limits, in radians (angle NaN when unknown)."""

    angle_rad: float
    q_min_rad: float
    q_max_rad: float

    @property
    def finite(self) -> bool:
        """Whether the angle is known."""
        return math.isfinite(self.angle_rad)

    @property
    def degrees_text(self) -> str:
        """Return the angle as shown, like ``"42°"`` (``"n/a"`` when unknown)."""
        if not self.finite:
            return "n/a"
        return degrees_text(self.angle_rad)

    @property
    def min_text(self) -> str:
        """Return the lower limit as shown, like ``"-150°"``."""
        return degrees_text(self.q_min_rad)

    @property
    def max_text(self) -> str:
        """Return the upper limit as shown, like ``"150°"``."""
        return degrees_text(self.q_max_rad)

    @property
    def fraction(self) -> float | None:
        """Where the angle sits between the limits (0 to 1, clamped), if known."""
        span = self.q_max_rad - self.q_min_rad
        if not self.finite or not 0 < span < math.inf:
            return None
        return min(max((self.angle_rad - self.q_min_rad) / span, 0.0), 1.0)

    @property
    def zero_fraction(self) -> float:
        """Where zero sits between the limits (0 to 1, clamped)."""
        span = self.q_max_rad - self.q_min_rad
        if not 0 < span < math.inf:
            return 0.0
        return min(max(-self.q_min_rad / span, 0.0), 1.0)


@dataclass(frozen=True)
class RowValue:
    """What one row shows at one play time.

    ``lines`` are drawn top to bottom; ``joints`` (the joints row) as one
    slider each, after the lines; ``value`` is the number a readout shows,
    when it shows one and knows it (``None`` otherwise).
    """

    lines: tuple[RowLine, ...] = ()
    joints: tuple[JointValue, ...] = ()
    value: float | None = None

    @property
    def texts(self) -> tuple[str, ...]:
        """Return the text of each line."""
        return tuple(line.text for line in self.lines)


@dataclass(frozen=True)
class Moment:
    """A recording at one play time, with what several rows read, read once."""

    model: RecordingModel
    play_time_s: float

    @cached_property
    def joint_angles(self) -> FloatArray | None:
        """The joint angles in force (``None`` when the model has none)."""
        name = self.model.joint_channel
        if name is None or name not in self.model.channels:
            return None
        return self.model.joint_angles_at(self.play_time_s)


class PanelRow(Protocol):
    """A row provider: one readout the panels show when a recording has it."""

    @property
    def name(self) -> str:
        """Key, unique in the registry: ``"tip"``, ``"ext_force"``."""
        ...

    @property
    def label(self) -> str:
        """What the row is, for people: ``"Ext. force"``."""
        ...

    @property
    def section(self) -> Section:
        """The group the row belongs to."""
        ...

    def applies(self, model: RecordingModel) -> bool:
        """Say whether ``model`` has this row (asked once per file, never reads)."""
        ...

    def value_at(self, moment: Moment) -> RowValue:
        """Return what the row shows at ``moment`` (never raises on odd data)."""
        ...


def labelled(label: str, text: str, value: float | None = None) -> RowValue:
    """Return a one-line row reading ``"label: text"``."""
    return RowValue(lines=(RowLine(f"{label}: {text}"),), value=value)


def degrees_text(angle_rad: float) -> str:
    """Return an angle in whole degrees, ``"42°"``; huge ones as ``"5.730e+301°"``.

    An angle too large for degrees (over about 3e306 rad) is shown in radians.
    """
    degrees = math.degrees(angle_rad)
    if math.isfinite(angle_rad) and not math.isfinite(degrees):
        return f"{fixed_text(angle_rad, 3)} rad"
    text = fixed_text(degrees, 0)
    return f"{'0' if text == '-0' else text}°"  # -0.3° shows as 0°, as skelarm
