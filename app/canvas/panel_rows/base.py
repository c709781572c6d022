"""What a panel row is: a provider that applies to a recording and gives lines.

A *panel row* is one readout of the side panel (the window's and the one
exports composite beside the scene): the play time, the joints, the tip, the
recorded force... A provider says whether a recording has it
(:meth:`PanelRow.applies`, asked once per file) and what it shows at a play
time (:meth:`PanelRow.value_at`): text lines, and for the joints each joint's
value within its limits, with its rate and effort. Both panels draw the rows of
:mod:`app.canvas.panel_rows.registry` that apply, in its order, so they show
the same rows. Plain Python and numpy, no Qt.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Final, Protocol

from app.canvas.shown_text import fixed_text, visible_text
from fsr_core.arrays import FloatArray
from fsr_core.joint_set import JointKind, JointSet, joint_values
from fsr_core.recording import RecordingModel

__all__ = [
    "MISSING_TEXT",
    "NAME_CHARS",
    "JointLine",
    "JointLineKind",
    "JointValue",
    "JointsGroup",
    "LineStyle",
    "Moment",
    "PanelRow",
    "RowLine",
    "RowValue",
    "Section",
    "degrees_text",
    "joint_lines",
    "joint_name_text",
    "labelled",
    "metres_text",
    "readout",
]

#: What a row says while its value is unknown at the play time.
MISSING_TEXT: Final = "—"
#: How far past a limit a joint may be before it is marked outside: half the
#: last digit shown (whole degrees, millimetres), so a value marked outside
#: always reads past its limit, and float error at a limit is no violation.
_LIMIT_SLACK_RAD: Final = math.radians(0.5)
_LIMIT_SLACK_M: Final = 0.0005


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


def _number_text(value: float, decimals: int) -> str:
    """Return ``value`` with ``decimals`` decimals, :data:`MISSING_TEXT` if unknown."""
    return fixed_text(value, decimals) if math.isfinite(value) else MISSING_TEXT


@dataclass(frozen=True)
class JointValue:
    """One joint at a play time: its value within its limits, rate and effort.

    Values are in SI units: radians (rad/s, N·m) for a revolute joint,
    metres (m/s, N) for a prismatic one; the texts show angles in degrees.
    ``value`` is NaN when unknown; a limit, rate or effort ``None`` when the
    recording has none (a recorded rate or effort unknown now is NaN).
    """

    name: str
    value: float
    lower: float | None = None
    upper: float | None = None
    kind: JointKind = JointKind.REVOLUTE
    velocity: float | None = None
    effort: float | None = None
    share: bool = False
    """The value is a share of an unknown range (a gripper recorded in %)."""

    @property
    def finite(self) -> bool:
        """Whether the value is known."""
        return math.isfinite(self.value)

    @property
    def prismatic(self) -> bool:
        """Whether the joint slides (its value a length)."""
        return self.kind is JointKind.PRISMATIC

    @property
    def value_text(self) -> str:
        """Return the value as shown: ``"42°"``, ``"0.040 m"``, ``"35%"``, ``"n/a"``."""
        if not self.finite:
            return "n/a"
        if self.share:
            return f"{fixed_text(100.0 * self.value, 0)}%"
        if self.prismatic:
            return metres_text(self.value)
        return degrees_text(self.value)

    @property
    def has_limits(self) -> bool:
        """Whether both limits are known and span something."""
        lower, upper = self.lower, self.upper
        return lower is not None and upper is not None and 0 < upper - lower < math.inf

    def _limit_text(self, limit: float | None) -> str:
        if limit is None:
            return ""
        if self.prismatic:
            return metres_text(limit)
        return degrees_text(limit)

    @property
    def min_text(self) -> str:
        """Return the lower limit as shown, like ``"-150°"`` ('' when unknown)."""
        return self._limit_text(self.lower)

    @property
    def max_text(self) -> str:
        """Return the upper limit as shown, like ``"150°"`` ('' when unknown)."""
        return self._limit_text(self.upper)

    @property
    def fraction(self) -> float | None:
        """Where the value sits between the limits (0 to 1, clamped), if known."""
        if not self.finite or not self.has_limits:
            return None
        lower, upper = self.lower or 0.0, self.upper or 0.0
        return min(max((self.value - lower) / (upper - lower), 0.0), 1.0)

    @property
    def zero_fraction(self) -> float:
        """Where zero sits between the limits (0 to 1, clamped; 0 without limits)."""
        if not self.has_limits:
            return 0.0
        lower, upper = self.lower or 0.0, self.upper or 0.0
        return min(max(-lower / (upper - lower), 0.0), 1.0)

    @property
    def outside(self) -> bool:
        """Whether the value is known and beyond a known limit."""
        if not self.finite:
            return False
        slack = _LIMIT_SLACK_M if self.prismatic else _LIMIT_SLACK_RAD
        below = self.lower is not None and self.value < self.lower - slack
        above = self.upper is not None and self.value > self.upper + slack
        return below or above

    @property
    def detail_text(self) -> str:
        """Return the rate and effort as shown: ``"12.0°/s · 1.50 N·m"``, or ""."""
        parts = []
        if self.velocity is not None:
            if self.prismatic:
                parts.append(f"{_number_text(self.velocity, 3)} m/s")
            else:
                parts.append(f"{_number_text(math.degrees(self.velocity), 1)}°/s")
        if self.effort is not None:
            unit = "N" if self.prismatic else "N·m"
            parts.append(f"{_number_text(self.effort, 2)} {unit}")
        return " · ".join(parts)

    @property
    def limits_text(self) -> str:
        """Return ``"-150° to 150°"``, or that the limits are unknown."""
        if self.lower is None and self.upper is None:
            return "limits not recorded"
        low = self.min_text or "?"
        high = self.max_text or "?"
        return f"{low} to {high}"


@dataclass(frozen=True)
class JointsGroup:
    """Joints shown under one heading: an arm of several (``""``: the only one)."""

    name: str
    indices: tuple[int, ...]


@dataclass(frozen=True)
class RowValue:
    """What one row shows at one play time.

    ``lines`` are drawn top to bottom; ``joints`` (the joints row) one row
    each, after the lines, under their ``groups``' names when there are
    several; ``value`` is the number a readout shows, when it shows one and
    knows it (``None`` otherwise).
    """

    lines: tuple[RowLine, ...] = ()
    joints: tuple[JointValue, ...] = ()
    value: float | None = None
    groups: tuple[JointsGroup, ...] = ()
    """How ``joints`` are grouped (several arms); empty: one group of all."""

    @property
    def texts(self) -> tuple[str, ...]:
        """Return the text of each line."""
        return tuple(line.text for line in self.lines)


@dataclass(frozen=True)
class Moment:
    """A recording at one play time, with what several rows read, read once.

    ``environment`` is the environment of a batched run the view follows
    (``""``: the first). ``reads`` says whether a row may read a channel
    that is not in memory and has no sample reader (a plot-only MCAP topic,
    a Genesis field): the window's panel says no while such channels are
    read off the GUI thread, and such values show as unknown meanwhile.
    """

    model: RecordingModel
    play_time_s: float
    environment: str = ""
    reads: bool = True

    @cached_property
    def joint_set(self) -> JointSet | None:
        """The model's joints, in the environment followed."""
        joints = self.model.joints
        if joints is None or not self.environment:
            return joints
        return joints.in_environment(self.environment)

    def sample(self, name: str | None) -> FloatArray | None:
        """Return channel ``name``'s sample in force, if it exists and may be read."""
        channel = None if name is None else self.model.channels.get(name)
        if channel is None:
            return None
        if not (self.reads or channel.loaded or channel.reads_one_sample):
            return None
        return channel.value_at(self.play_time_s)

    @cached_property
    def joint_angles(self) -> FloatArray | None:
        """The joint positions in force, in rad and m (``None`` when none)."""
        joints = self.joint_set
        sample = None if joints is None else self.sample(joints.positions)
        if joints is None or sample is None:
            return None
        return joint_values(sample, joints.position_columns, joints.joints)

    @cached_property
    def joint_rates(self) -> FloatArray | None:
        """The joint velocities in force, in rad/s and m/s (``None`` when none)."""
        joints = self.joint_set
        sample = None if joints is None else self.sample(joints.velocities)
        if joints is None or sample is None:
            return None
        return joint_values(sample, joints.velocity_columns, joints.joints, rates=True)


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


def readout(label: str, value: float | None, show: Callable[[float], str]) -> RowValue:
    """Return ``"label: <show(value)>"``; ``"label: —"`` while ``value`` is unknown."""
    if value is None:
        return labelled(label, MISSING_TEXT)
    return labelled(label, show(value), value)


def metres_text(length_m: float) -> str:
    """Return a length to the millimetre, ``"0.040 m"`` (``-0.0001`` as ``0.000``)."""
    text = fixed_text(length_m, 3)
    return f"{text.removeprefix('-') if float(text) == 0 else text} m"


def degrees_text(angle_rad: float) -> str:
    """Return an angle in whole degrees, ``"42°"``; huge ones as ``"5.730e+301°"``.

    An angle too large for degrees (over about 3e306 rad) is shown in radians.
    """
    degrees = math.degrees(angle_rad)
    if math.isfinite(angle_rad) and not math.isfinite(degrees):
        return f"{fixed_text(angle_rad, 3)} rad"
    text = fixed_text(degrees, 0)
    return f"{'0' if text == '-0' else text}°"  # -0.3° shows as 0°, as skelarm


#: Characters of a joint's or group's name shown (names come from the file).
NAME_CHARS: Final = 80


def joint_name_text(joint: JointValue) -> str:
    """Return the joint's name as shown: plain, made safe, elided past 80 characters."""
    return visible_text(joint.name, NAME_CHARS)


class JointLineKind(StrEnum):
    """What a line of the joints row is."""

    GROUP = "group"
    """The name of an arm (a group of joints), above its joints."""
    JOINT = "joint"
    """A joint's name and value, ``"q0: 42°"``."""
    DETAIL = "detail"
    """A joint's rate and effort, under it."""


@dataclass(frozen=True)
class JointLine:
    """One line of the joints row as both panels show it, top to bottom."""

    text: str
    kind: JointLineKind
    index: int | None = None
    """The joint's index in :attr:`RowValue.joints` (``None`` for a group)."""


def joint_lines(value: RowValue) -> tuple[JointLine, ...]:
    """Return the joints' lines of ``value``: groups, joints, rates and efforts.

    The exported panel paints these; the side panel shows the same texts.
    """
    groups = value.groups or (JointsGroup("", tuple(range(len(value.joints)))),)
    lines: list[JointLine] = []
    for group in groups:
        if value.groups:
            name = visible_text(group.name, NAME_CHARS) if group.name else "other"
            lines.append(JointLine(name, JointLineKind.GROUP))
        for index in group.indices:
            joint = value.joints[index]
            text = f"{joint_name_text(joint)}: {joint.value_text}"
            lines.append(JointLine(text, JointLineKind.JOINT, index))
            if joint.detail_text:
                lines.append(JointLine(joint.detail_text, JointLineKind.DETAIL, index))
    return tuple(lines)
