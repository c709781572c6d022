"""Tasks of the planar arm: what the tip should do, and what the viewer draws.

A task is a frozen value with a ``kind``, a JSON form (``to_json`` /
``from_json``, plain lists, floats, ints and strings, so it fits both
canonical JSON and a TOML scenario table) and three views of itself:

- ``tip_reference(t_s)``: where the tip should be at a simulation time;
- ``active_target(t_s)``: the index of the target in effect, or None for tasks
  without targets;
- ``overlay_json(model)``: the task context a viewer draws, in plane
  coordinates (``(x, y)``, metres, ``y`` up; the recorder maps them to world
  coordinates).

The overlay object always has the same keys::

    {"kind": str,
     "targets": [{"label": str, "xy": [x, y], "tolerance_m": float}, ...],
     "active_index": int | None,   # at t = 0
     "switches": [[time_s, index], ...],
     "curve_xy": [[x, y], ...],     # 256 points of a periodic curve, closed
     "reference_xy": [[x, y], ...]} # a reference trajectory's samples

with empty lists where a task has no such part.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeAlias

import numpy as np
import numpy.typing as npt

from fsr_core.adapters.planar_arm.model import ArmModel
from fsr_core.errors import SchemaError

__all__ = [
    "CURVES",
    "CURVE_SAMPLES",
    "MultiTargetTask",
    "PeriodicCurveTask",
    "ReachTask",
    "ReferenceTrajectoryTask",
    "Task",
    "task_from_json",
]

FloatArray = npt.NDArray[np.float64]
XY: TypeAlias = tuple[float, float]

#: Curve names :class:`PeriodicCurveTask` knows.
CURVES: Final = ("circle", "ellipse", "lemniscate")
#: Points of the closed polyline drawn for a periodic curve.
CURVE_SAMPLES: Final = 256
_SECTION: Final = "task"


# ---------------------------------------------------------------------------
# Value checks
# ---------------------------------------------------------------------------


def _fail(message: str) -> SchemaError:
    return SchemaError(message, section=_SECTION)


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(f"{name} must be a number, found {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise _fail(f"{name} must be finite, found {number}")
    return number + 0.0  # fold -0.0


def _positive(value: object, name: str) -> float:
    number = _number(value, name)
    if number <= 0:
        raise _fail(f"{name} must be positive, found {number}")
    return number


def _xy(value: object, name: str) -> XY:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise _fail(f"{name} must be a pair of numbers [x, y], found {value!r}")
    return (_number(value[0], f"{name}[0]"), _number(value[1], f"{name}[1]"))


def _xy_list(value: object, name: str) -> tuple[XY, ...]:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, list | tuple) or not value:
        raise _fail(f"{name} must be a non-empty list of [x, y] pairs")
    return tuple(_xy(item, f"{name}[{i}]") for i, item in enumerate(value))


def _index(value: object, name: str) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(f"{name} must be an integer >= 0, found {value!r}")
    return value


def _fields(
    obj: object, kind: str, required: tuple[str, ...], optional: tuple[str, ...]
) -> Mapping[str, Any]:
    """Check a task's JSON object: its kind, required and known keys."""
    if not isinstance(obj, Mapping):
        raise _fail(f"a task must be an object, found {obj!r}")
    if obj.get("kind") != kind:
        raise _fail(f"expected task kind {kind!r}, found {obj.get('kind')!r}")
    for key in required:
        if key not in obj:
            raise _fail(f"{kind} task: required key {key!r} is missing")
    known = {"kind", *required, *optional}
    for key in sorted(str(key) for key in obj):
        if key not in known:
            raise _fail(f"{kind} task: unknown key {key!r}")
    return obj


def _pairs(points: Sequence[XY]) -> list[list[float]]:
    return [[x, y] for x, y in points]


def _overlay(
    kind: str,
    *,
    targets: Sequence[tuple[str, XY, float]] = (),
    active_index: int | None = None,
    switches: Sequence[tuple[float, int]] = (),
    curve_xy: Sequence[XY] = (),
    reference_xy: Sequence[XY] = (),
) -> dict[str, Any]:
    return {
        "kind": kind,
        "targets": [
            {"label": label, "xy": [xy[0], xy[1]], "tolerance_m": tolerance}
            for label, xy, tolerance in targets
        ],
        "active_index": active_index,
        "switches": [[time_s, index] for time_s, index in switches],
        "curve_xy": _pairs(curve_xy),
        "reference_xy": _pairs(reference_xy),
    }


def _time(t_s: float) -> float:
    if not math.isfinite(t_s):
        raise ValueError(f"t_s must be finite, got {t_s}")
    return float(t_s)


# ---------------------------------------------------------------------------
# Reaching
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ReachTask:
    """Bring the tip to one target and keep it there.

    Parameters
    ----------
    target_xy
        Target position, plane coordinates, metres.
    tolerance_m
        Distance from the target within which it counts as reached.
    label
        Name shown next to the target.

    Raises
    ------
    SchemaError
        A value is not finite, the tolerance not positive or the label empty.
    """

    kind: ClassVar[str] = "reach"

    target_xy: XY
    tolerance_m: float = 0.02
    label: str = "target"

    def __post_init__(self) -> None:
        """Check the values and store plain floats."""
        object.__setattr__(self, "target_xy", _xy(self.target_xy, "target_xy"))
        object.__setattr__(
            self, "tolerance_m", _positive(self.tolerance_m, "tolerance_m")
        )
        if not isinstance(self.label, str) or not self.label:
            raise _fail(f"label must be a non-empty string, found {self.label!r}")

    def tip_reference(self, t_s: float) -> FloatArray:
        """Return the target (the reference at every time), shape ``(2,)``."""
        _time(t_s)
        return np.array(self.target_xy)

    def active_target(self, t_s: float) -> int | None:
        """Return 0: the single target is always active."""
        _time(t_s)
        return 0

    def overlay_json(self, model: ArmModel) -> dict[str, Any]:
        """Return the overlay object (see the module docstring)."""
        return _overlay(
            self.kind,
            targets=[(self.label, self.target_xy, self.tolerance_m)],
            active_index=0,
        )

    def to_json(self) -> dict[str, Any]:
        """Return the task as JSON-ready values."""
        return {
            "kind": self.kind,
            "target_xy": list(self.target_xy),
            "tolerance_m": self.tolerance_m,
            "label": self.label,
        }

    @classmethod
    def from_json(cls, obj: object) -> ReachTask:
        """Inverse of :meth:`to_json`; ``tolerance_m`` and ``label`` optional.

        Raises
        ------
        SchemaError
            Wrong kind, a missing or unknown key, or an invalid value.
        """
        fields = _fields(obj, cls.kind, ("target_xy",), ("tolerance_m", "label"))
        return cls(
            target_xy=_xy(fields["target_xy"], "target_xy"),
            tolerance_m=fields.get("tolerance_m", 0.02),
            label=fields.get("label", "target"),
        )


@dataclass(frozen=True)
class MultiTargetTask:
    """Several candidate targets; a script switches the active one over time.

    Target 0 is active from time 0 until the first switch. Each switch
    ``(time_s, index)`` makes target ``index`` active from ``time_s`` on.

    Parameters
    ----------
    targets
        Candidate target positions, plane coordinates, metres; at least one.
    switches
        ``(time_s, index)`` pairs, times >= 0 and strictly increasing, indices
        into ``targets``. A switch at time 0 replaces the initial target.
    tolerance_m
        Distance within which a target counts as reached (every target).
    labels
        One name per target; empty for ``"target 1"``, ``"target 2"``, ...

    Raises
    ------
    SchemaError
        No targets, a bad switch time or index, or labels of the wrong count.
    """

    kind: ClassVar[str] = "multi_target"

    targets: tuple[XY, ...]
    switches: tuple[tuple[float, int], ...] = ()
    tolerance_m: float = 0.02
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Check the values and store plain tuples."""
        targets = _xy_list(self.targets, "targets")
        object.__setattr__(self, "targets", targets)
        object.__setattr__(self, "switches", self._checked_switches(len(targets)))
        object.__setattr__(
            self, "tolerance_m", _positive(self.tolerance_m, "tolerance_m")
        )
        labels = tuple(self.labels)
        if labels and len(labels) != len(targets):
            raise _fail(f"expected {len(targets)} labels, found {len(labels)}")
        if not all(isinstance(label, str) and label for label in labels):
            raise _fail("labels must be non-empty strings")
        object.__setattr__(self, "labels", labels)

    def _checked_switches(self, count: int) -> tuple[tuple[float, int], ...]:
        switches: list[tuple[float, int]] = []
        for i, item in enumerate(self.switches):
            if not isinstance(item, list | tuple) or len(item) != 2:
                raise _fail(f"switches[{i}] must be a pair [time_s, index]")
            time_s = _number(item[0], f"switches[{i}][0]")
            index = _index(item[1], f"switches[{i}][1]")
            if time_s < 0 or (switches and time_s <= switches[-1][0]):
                raise _fail(f"switch times must be >= 0 and increase, at {i}")
            if index >= count:
                raise _fail(f"switches[{i}] names target {index} of {count}")
            switches.append((time_s, index))
        return tuple(switches)

    def label(self, index: int) -> str:
        """Return the name of target ``index``."""
        return self.labels[index] if self.labels else f"target {index + 1}"

    def active_target(self, t_s: float) -> int | None:
        """Return the index of the target active at ``t_s``."""
        when = _time(t_s)
        active = 0
        for time_s, index in self.switches:
            if time_s > when:
                break
            active = index
        return active

    def tip_reference(self, t_s: float) -> FloatArray:
        """Return the active target's position, shape ``(2,)``."""
        index = self.active_target(t_s)
        return np.array(self.targets[0 if index is None else index])

    def overlay_json(self, model: ArmModel) -> dict[str, Any]:
        """Return the overlay object (see the module docstring)."""
        return _overlay(
            self.kind,
            targets=[
                (self.label(i), xy, self.tolerance_m)
                for i, xy in enumerate(self.targets)
            ],
            active_index=self.active_target(0.0),
            switches=self.switches,
        )

    def to_json(self) -> dict[str, Any]:
        """Return the task as JSON-ready values."""
        return {
            "kind": self.kind,
            "targets": _pairs(self.targets),
            "switches": [[time_s, index] for time_s, index in self.switches],
            "tolerance_m": self.tolerance_m,
            "labels": list(self.labels),
        }

    @classmethod
    def from_json(cls, obj: object) -> MultiTargetTask:
        """Inverse of :meth:`to_json`; all keys but ``targets`` optional.

        Raises
        ------
        SchemaError
            Wrong kind, a missing or unknown key, or an invalid value.
        """
        fields = _fields(
            obj, cls.kind, ("targets",), ("switches", "tolerance_m", "labels")
        )
        switches = fields.get("switches", [])
        labels = fields.get("labels", [])
        if not isinstance(switches, list | tuple):
            raise _fail("switches must be a list of [time_s, index] pairs")
        if not isinstance(labels, list | tuple):
            raise _fail("labels must be a list of strings")
        return cls(
            targets=_xy_list(fields["targets"], "targets"),
            switches=tuple(switches),
            tolerance_m=fields.get("tolerance_m", 0.02),
            labels=tuple(labels),
        )


# ---------------------------------------------------------------------------
# Tracking
# ---------------------------------------------------------------------------


def _circle(angle: float, rx: float, ry: float) -> tuple[XY, XY]:
    del ry  # a circle uses rx only
    c, s = math.cos(angle), math.sin(angle)
    return (rx * c, rx * s), (-rx * s, rx * c)


def _ellipse(angle: float, rx: float, ry: float) -> tuple[XY, XY]:
    c, s = math.cos(angle), math.sin(angle)
    return (rx * c, ry * s), (-rx * s, ry * c)


def _lemniscate(angle: float, rx: float, ry: float) -> tuple[XY, XY]:
    """Bernoulli's lemniscate, ``x = c / (1 + s^2)``, ``y = s c / (1 + s^2)``."""
    c, s = math.cos(angle), math.sin(angle)
    d = 1.0 + s * s
    point = (rx * c / d, ry * s * c / d)
    dx = -rx * s * (3.0 - s * s) / (d * d)
    dy = ry * (math.cos(2.0 * angle) * d - 2.0 * (s * c) ** 2) / (d * d)
    return point, (dx, dy)


_CurveFunction: TypeAlias = Callable[[float, float, float], tuple[XY, XY]]
_CURVE_FUNCTIONS: Final[Mapping[str, _CurveFunction]] = {
    "circle": _circle,
    "ellipse": _ellipse,
    "lemniscate": _lemniscate,
}


@dataclass(frozen=True)
class PeriodicCurveTask:
    """Trace a closed curve with the tip, once per period.

    With ``angle = 2 pi t / period_s + phase_rad`` and ``c, s`` its cosine and
    sine, the curves (relative to ``center_xy``) are:

    - ``circle``: ``rx (c, s)`` (``ry`` is ignored);
    - ``ellipse``: ``(rx c, ry s)``;
    - ``lemniscate``: Bernoulli's figure eight ``(rx c, ry s c) / (1 + s^2)``,
      spanning ``x`` in ``[-rx, rx]``, crossing itself at the centre at
      ``angle = pi/2, 3pi/2``, with lobes ``ry / (2 sqrt 2)`` high.

    Parameters
    ----------
    curve
        One of :data:`CURVES`.
    center_xy
        Centre of the curve, plane coordinates, metres.
    radius_xy
        ``(rx, ry)``, metres, both positive.
    period_s
        Time of one lap, seconds.
    phase_rad
        Angle at time 0.

    Raises
    ------
    SchemaError
        An unknown curve, a non-positive radius or period, a non-finite value.
    """

    kind: ClassVar[str] = "periodic_curve"

    curve: str
    center_xy: XY
    radius_xy: XY
    period_s: float
    phase_rad: float = 0.0

    def __post_init__(self) -> None:
        """Check the values and store plain floats."""
        if self.curve not in CURVES:
            raise _fail(f"curve must be one of {CURVES}, found {self.curve!r}")
        object.__setattr__(self, "center_xy", _xy(self.center_xy, "center_xy"))
        rx, ry = _xy(self.radius_xy, "radius_xy")
        object.__setattr__(
            self,
            "radius_xy",
            (_positive(rx, "radius_xy[0]"), _positive(ry, "radius_xy[1]")),
        )
        object.__setattr__(self, "period_s", _positive(self.period_s, "period_s"))
        object.__setattr__(self, "phase_rad", _number(self.phase_rad, "phase_rad"))

    def _evaluate(self, t_s: float) -> tuple[XY, XY]:
        angle = 2.0 * math.pi * _time(t_s) / self.period_s + self.phase_rad
        return _CURVE_FUNCTIONS[self.curve](angle, *self.radius_xy)

    def point(self, t_s: float) -> FloatArray:
        """Return the curve point at ``t_s``, plane coordinates, shape ``(2,)``."""
        (x, y), _ = self._evaluate(t_s)
        return np.array((self.center_xy[0] + x, self.center_xy[1] + y))

    def velocity(self, t_s: float) -> FloatArray:
        """Return the analytic time derivative of :meth:`point`, m/s, ``(2,)``."""
        _, (dx, dy) = self._evaluate(t_s)
        rate = 2.0 * math.pi / self.period_s
        return np.array((rate * dx, rate * dy))

    def tip_reference(self, t_s: float) -> FloatArray:
        """Return :meth:`point` (the curve is the tip's reference)."""
        return self.point(t_s)

    def active_target(self, t_s: float) -> int | None:
        """Return None: a curve has no targets."""
        _time(t_s)
        return None

    def polyline(self, samples: int = CURVE_SAMPLES) -> FloatArray:
        """Return one lap sampled evenly in time, closed, shape ``(samples, 2)``."""
        times = np.linspace(0.0, self.period_s, samples)
        return np.array([self.point(float(t_s)) for t_s in times])

    def overlay_json(self, model: ArmModel) -> dict[str, Any]:
        """Return the overlay object (see the module docstring)."""
        points = [(float(x), float(y)) for x, y in self.polyline()]
        return _overlay(self.kind, curve_xy=points)

    def to_json(self) -> dict[str, Any]:
        """Return the task as JSON-ready values."""
        return {
            "kind": self.kind,
            "curve": self.curve,
            "center_xy": list(self.center_xy),
            "radius_xy": list(self.radius_xy),
            "period_s": self.period_s,
            "phase_rad": self.phase_rad,
        }

    @classmethod
    def from_json(cls, obj: object) -> PeriodicCurveTask:
        """Inverse of :meth:`to_json`; ``phase_rad`` optional.

        Raises
        ------
        SchemaError
            Wrong kind, a missing or unknown key, or an invalid value.
        """
        fields = _fields(
            obj,
            cls.kind,
            ("curve", "center_xy", "radius_xy", "period_s"),
            ("phase_rad",),
        )
        return cls(
            curve=fields["curve"],
            center_xy=_xy(fields["center_xy"], "center_xy"),
            radius_xy=_xy(fields["radius_xy"], "radius_xy"),
            period_s=fields["period_s"],
            phase_rad=fields.get("phase_rad", 0.0),
        )


@dataclass(frozen=True)
class ReferenceTrajectoryTask:
    """Follow sampled tip positions, linearly interpolated.

    Before the first sample the reference is the first point; after the last
    it holds the last point.

    Parameters
    ----------
    times_s
        Sample times, seconds, finite, >= 0 and strictly increasing.
    points_xy
        One tip position per time, plane coordinates, metres.

    Raises
    ------
    SchemaError
        Empty or mismatched samples, times not increasing, non-finite values.
    """

    kind: ClassVar[str] = "reference_trajectory"

    times_s: tuple[float, ...]
    points_xy: tuple[XY, ...]

    def __post_init__(self) -> None:
        """Check the samples and store plain tuples."""
        raw: object = self.times_s
        if isinstance(raw, np.ndarray):
            raw = raw.tolist()
        if not isinstance(raw, list | tuple) or not raw:
            raise _fail("times_s must be a non-empty list of numbers")
        checked = tuple(_number(item, f"times_s[{i}]") for i, item in enumerate(raw))
        if checked[0] < 0 or any(b <= a for a, b in itertools.pairwise(checked)):
            raise _fail("times_s must be >= 0 and strictly increasing")
        points = _xy_list(self.points_xy, "points_xy")
        if len(points) != len(checked):
            raise _fail(f"expected {len(checked)} points_xy, found {len(points)}")
        object.__setattr__(self, "times_s", checked)
        object.__setattr__(self, "points_xy", points)

    def tip_reference(self, t_s: float) -> FloatArray:
        """Return the interpolated reference position at ``t_s``, shape ``(2,)``."""
        when = _time(t_s)
        points = np.array(self.points_xy)
        return np.array(
            (
                np.interp(when, self.times_s, points[:, 0]),
                np.interp(when, self.times_s, points[:, 1]),
            )
        )

    def velocity(self, t_s: float) -> FloatArray:
        """Return the reference velocity (the segment's slope; 0 outside), m/s."""
        when = _time(t_s)
        times = self.times_s
        if len(times) < 2 or when < times[0] or when >= times[-1]:
            return np.zeros(2)
        k = int(np.searchsorted(times, when, side="right")) - 1
        (x0, y0), (x1, y1) = self.points_xy[k], self.points_xy[k + 1]
        span = times[k + 1] - times[k]
        return np.array(((x1 - x0) / span, (y1 - y0) / span))

    def active_target(self, t_s: float) -> int | None:
        """Return None: a trajectory has no targets."""
        _time(t_s)
        return None

    def overlay_json(self, model: ArmModel) -> dict[str, Any]:
        """Return the overlay object (see the module docstring)."""
        return _overlay(self.kind, reference_xy=self.points_xy)

    def to_json(self) -> dict[str, Any]:
        """Return the task as JSON-ready values."""
        return {
            "kind": self.kind,
            "times_s": list(self.times_s),
            "points_xy": _pairs(self.points_xy),
        }

    @classmethod
    def from_json(cls, obj: object) -> ReferenceTrajectoryTask:
        """Inverse of :meth:`to_json`.

        Raises
        ------
        SchemaError
            Wrong kind, a missing or unknown key, or an invalid value.
        """
        fields = _fields(obj, cls.kind, ("times_s", "points_xy"), ())
        times = fields["times_s"]
        if not isinstance(times, list | tuple):
            raise _fail("times_s must be a list of numbers")
        return cls(
            times_s=tuple(times), points_xy=_xy_list(fields["points_xy"], "points_xy")
        )


#: Any planar-arm task.
Task: TypeAlias = (
    ReachTask | MultiTargetTask | PeriodicCurveTask | ReferenceTrajectoryTask
)

_TASKS: Final[Mapping[str, Callable[[object], Task]]] = {
    ReachTask.kind: ReachTask.from_json,
    MultiTargetTask.kind: MultiTargetTask.from_json,
    PeriodicCurveTask.kind: PeriodicCurveTask.from_json,
    ReferenceTrajectoryTask.kind: ReferenceTrajectoryTask.from_json,
}


def task_from_json(obj: object) -> Task:
    """Build a task from its JSON form, dispatching on ``kind``.

    Parameters
    ----------
    obj
        A task's :meth:`to_json` value (or a hand-written TOML ``[task]``).

    Returns
    -------
    Task
        The task.

    Raises
    ------
    SchemaError
        Not an object, an unknown kind, or an invalid task.
    """
    if not isinstance(obj, Mapping):
        raise _fail(f"a task must be an object, found {obj!r}")
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in _TASKS:
        options = ", ".join(sorted(_TASKS))
        raise _fail(f"task kind must be one of {options}, found {kind!r}")
    return _TASKS[kind](obj)
