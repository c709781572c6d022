"""The numbers a side panel shows at a play time, shared by every panel.

The exported panel (:class:`app.canvas.panel.ReadoutPanel`) and the live
side panel of the window both read :func:`panel_values`, so they show the
same time, tick, joint angles, tip position and speed and readouts
(external-force magnitude, friction, active target) at the same play time.
Plain numpy, no Qt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np

from app.canvas.shown_text import fixed_text
from fsr_core.arrays import FloatArray
from fsr_core.recording import Channel, PlanarKinematics, RecordingModel

__all__ = [
    "ACTIVE_TARGET",
    "EXT_FORCE",
    "FRICTION",
    "MISSING_TEXT",
    "TIP",
    "TIP_SPEED",
    "JointValue",
    "PanelValues",
    "Readout",
    "force_text",
    "panel_rows",
    "panel_values",
]

#: Row keys, in the order panels show them.
TIP: Final = "tip"
TIP_SPEED: Final = "tip_speed"
EXT_FORCE: Final = "ext_force"
FRICTION: Final = "friction"
ACTIVE_TARGET: Final = "active_target"
#: What a row says while its value is unknown at the play time.
MISSING_TEXT: Final = "—"

_READOUT_LABELS: Final = {
    EXT_FORCE: "Ext. force",
    FRICTION: "Friction",
    ACTIVE_TARGET: "Active target",
}
#: Joint limit assumed when the recording gives none (or a non-finite one).
_DEFAULT_LIMIT_RAD: Final = math.pi


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
        return _degrees_text(self.angle_rad)

    @property
    def min_text(self) -> str:
        """Return the lower limit as shown, like ``"-150°"``."""
        return _degrees_text(self.q_min_rad)

    @property
    def max_text(self) -> str:
        """Return the upper limit as shown, like ``"150°"``."""
        return _degrees_text(self.q_max_rad)

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
class Readout:
    """One recorded parameter row: its key, label, value and shown text."""

    key: str
    label: str
    value: float | None
    text: str


@dataclass(frozen=True)
class PanelValues:
    """Everything a side panel shows at one play time."""

    play_time_s: float
    tick: int
    generation: int
    #: One entry per joint; empty when the recording has no joint angles.
    joints: tuple[JointValue, ...]
    has_kinematics: bool
    tip_xy_m: tuple[float, float] | None
    tip_speed_m_s: float | None
    #: The readout rows the recording has (see :func:`panel_rows`), in order.
    readouts: tuple[Readout, ...]
    #: The task the robot was given, in words, at this time ('' when none).
    task: str = ""

    @property
    def task_text(self) -> str:
        """Return the task line as shown, ``"Task: pick the red cube"`` ('' if none)."""
        return f"Task: {self.task}" if self.task else ""

    @property
    def time_text(self) -> str:
        """Return the play time as shown, like ``"t = 1.25 s"``."""
        return f"t = {fixed_text(self.play_time_s, 2)} s"

    @property
    def tick_text(self) -> str:
        """Return the discrete clocks as shown, like ``"tick 12 · generation 0"``."""
        return f"tick {self.tick} · generation {self.generation}"

    @property
    def tip_text(self) -> str:
        """Return the tip position as shown, like ``"(0.123, -0.456)"``."""
        if self.tip_xy_m is None:
            return MISSING_TEXT
        x_m, y_m = self.tip_xy_m
        return f"({fixed_text(x_m, 3)}, {fixed_text(y_m, 3)})"

    @property
    def tip_speed_text(self) -> str:
        """Return the tip speed as shown, like ``"0.512 m/s"``."""
        if self.tip_speed_m_s is None:
            return MISSING_TEXT
        return f"{fixed_text(self.tip_speed_m_s, 3)} m/s"

    def readout(self, key: str) -> Readout | None:
        """Return the readout row ``key`` (``EXT_FORCE``, ...), if there is one."""
        for row in self.readouts:
            if row.key == key:
                return row
        return None


def _degrees_text(angle_rad: float) -> str:
    """Return an angle in whole degrees, ``"42°"``; huge ones as ``"5.730e+301°"``.

    An angle too large for degrees (over about 3e306 rad) is shown in radians.
    """
    degrees = math.degrees(angle_rad)
    if math.isfinite(angle_rad) and not math.isfinite(degrees):
        return f"{fixed_text(angle_rad, 3)} rad"
    text = fixed_text(degrees, 0)
    return f"{'0' if text == '-0' else text}°"  # -0.3° shows as 0°, as skelarm


def panel_rows(model: RecordingModel) -> tuple[str, ...]:
    """Return the value rows ``model`` can fill, in the order panels show them.

    The keys are :data:`TIP`, :data:`TIP_SPEED`, :data:`EXT_FORCE`,
    :data:`FRICTION` and :data:`ACTIVE_TARGET`. They depend on what the
    recording holds, not on the play time, so a panel builds its rows once per
    file; at a moment where a row's value is unknown it reads
    :data:`MISSING_TEXT`.
    """
    has_angles = model.kinematics is not None and model.joint_channel is not None
    rows = {
        TIP: has_angles,
        TIP_SPEED: _column(model, "tip speed") is not None
        or (has_angles and "dq" in model.channels),
        EXT_FORCE: model.external_force_channel in model.channels,
        FRICTION: _column(model, "friction") is not None,
        ACTIVE_TARGET: model.active_target_channel in model.channels
        and any(overlay.targets_xy for overlay in model.overlays.values()),
    }
    return tuple(key for key, present in rows.items() if present)


def panel_values(model: RecordingModel, play_time_s: float) -> PanelValues:
    """Return what a side panel shows for ``model`` at ``play_time_s``."""
    tick, generation = model.timeline.tick_at(play_time_s)
    q = model.joint_angles_at(play_time_s)
    rows = panel_rows(model)
    tip = None
    # Extreme finite values (1e308) overflow on the way; they show as inf/nan.
    with np.errstate(all="ignore"):
        if model.kinematics is not None and q is not None and np.isfinite(q).all():
            point = model.kinematics.joint_positions(q)[-1]
            tip = (float(point[0]), float(point[1]))
        speed = _tip_speed(model, play_time_s, q) if TIP_SPEED in rows else None
    return PanelValues(
        play_time_s=float(play_time_s),
        tick=tick,
        generation=generation,
        joints=_joints(model.kinematics, q),
        has_kinematics=model.kinematics is not None,
        tip_xy_m=tip if TIP in rows else None,
        tip_speed_m_s=speed,
        readouts=tuple(
            _readout(model, key, play_time_s) for key in rows if key in _READOUT_LABELS
        ),
        task=model.task_text_at(play_time_s),
    )


# -- values -----------------------------------------------------------------


def _column(model: RecordingModel, label: str) -> tuple[Channel, int] | None:
    """Resolve the ``"channel:column"`` readout ``label`` to a channel and index."""
    reference = model.readouts.get(label)
    if reference is None:
        return None
    name, _, column = reference.rpartition(":")
    channel = model.channels.get(name)
    if channel is None or column not in channel.columns:
        return None
    return channel, channel.columns.index(column)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _recorded(model: RecordingModel, label: str, play_time_s: float) -> float | None:
    found = _column(model, label)
    if found is None:
        return None
    channel, index = found
    return _finite(float(channel.value_at(play_time_s)[index]))


def _channel_value(
    model: RecordingModel, name: str | None, play_time_s: float
) -> FloatArray | None:
    channel = None if name is None else model.channels.get(name)
    return None if channel is None else channel.value_at(play_time_s)


def _limit(values: FloatArray | None, index: int, default: float) -> float:
    if values is None or index >= len(values) or not math.isfinite(values[index]):
        return default
    return float(values[index])


def _joints(
    kinematics: PlanarKinematics | None, q: FloatArray | None
) -> tuple[JointValue, ...]:
    if q is None:
        return ()
    q_min = None if kinematics is None else kinematics.q_min_rad
    q_max = None if kinematics is None else kinematics.q_max_rad
    return tuple(
        JointValue(
            angle_rad=float(angle),
            q_min_rad=_limit(q_min, index, -_DEFAULT_LIMIT_RAD),
            q_max_rad=_limit(q_max, index, _DEFAULT_LIMIT_RAD),
        )
        for index, angle in enumerate(q)
    )


def _tip_speed(
    model: RecordingModel, play_time_s: float, q: FloatArray | None
) -> float | None:
    """Return the recorded tip speed, else ``|J(q) dq|`` from the joint rates."""
    recorded = _recorded(model, "tip speed", play_time_s)
    kinematics = model.kinematics
    if recorded is not None or kinematics is None or q is None:
        return recorded
    dq = _channel_value(model, "dq", play_time_s)
    if dq is None or dq.shape != q.shape or not np.isfinite(dq).all():
        return None
    return _finite(float(kinematics.tip_speeds(q[None, :], dq[None, :])[0]))


def force_text(newtons: float) -> str:
    """Return a force magnitude as shown: one decimal, three figures below 1 N.

    A skelarm mouse push is often a fraction of a newton; skelarm's player
    shows three significant figures, so ``0.0538`` is not shown as ``0.1``.
    """
    if 0 < abs(newtons) < 1:
        return f"{newtons:.3g}"
    return fixed_text(newtons, 1)


def _readout(model: RecordingModel, key: str, play_time_s: float) -> Readout:
    value: float | None = None
    text = MISSING_TEXT
    if key == EXT_FORCE:
        force = _channel_value(model, model.external_force_channel, play_time_s)
        if force is not None and len(force) >= 2:
            value = _finite(math.hypot(force[0], force[1]))
        if value is not None:
            text = f"{force_text(value)} N"
    elif key == FRICTION:
        value = _recorded(model, "friction", play_time_s)
        if value is not None:
            text = f"{fixed_text(value, 3)} N·m·s/rad"
    else:
        value = _active_target(model, play_time_s)
        if value is not None:
            text = fixed_text(value, 0)
    return Readout(key=key, label=_READOUT_LABELS[key], value=value, text=text)


def _active_target(model: RecordingModel, play_time_s: float) -> float | None:
    """Return the 1-based number of the active target, when there are targets."""
    active = _channel_value(model, model.active_target_channel, play_time_s)
    overlay = model.overlay_at(play_time_s)
    if active is None or overlay is None or not overlay.targets_xy:
        return None
    if not math.isfinite(active[0]):
        return None
    return float(round(float(active[0])) + 1)
