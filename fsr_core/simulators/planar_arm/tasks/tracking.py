"""Tracking tasks: trace a periodic curve, or follow a sampled tip trajectory."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeAlias

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.simulators.planar_arm.model import ArmModel
from fsr_core.simulators.planar_arm.tasks._checks import (
    XY,
    check_number,
    check_positive,
    check_time,
    check_xy,
    check_xy_list,
    fail,
    overlay,
)
from fsr_core.simulators.planar_arm.tasks.base import TaskJson

__all__ = ["CURVES", "CURVE_SAMPLES", "PeriodicCurveTask", "ReferenceTrajectoryTask"]


#: Curve names :class:`PeriodicCurveTask` knows.
CURVES: Final = ("circle", "ellipse", "lemniscate")
#: Points of the closed polyline drawn for a periodic curve.
CURVE_SAMPLES: Final = 256


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
class PeriodicCurveTask(TaskJson):
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
    required_keys: ClassVar[tuple[str, ...]] = (
        "curve",
        "center_xy",
        "radius_xy",
        "period_s",
    )
    optional_keys: ClassVar[tuple[str, ...]] = ("phase_rad",)

    curve: str
    center_xy: XY
    radius_xy: XY
    period_s: float
    phase_rad: float = 0.0

    def __post_init__(self) -> None:
        """Check the values and store plain floats."""
        if self.curve not in CURVES:
            raise fail(f"curve must be one of {CURVES}, found {self.curve!r}")
        object.__setattr__(self, "center_xy", check_xy(self.center_xy, "center_xy"))
        rx, ry = check_xy(self.radius_xy, "radius_xy")
        object.__setattr__(
            self,
            "radius_xy",
            (check_positive(rx, "radius_xy[0]"), check_positive(ry, "radius_xy[1]")),
        )
        object.__setattr__(self, "period_s", check_positive(self.period_s, "period_s"))
        object.__setattr__(self, "phase_rad", check_number(self.phase_rad, "phase_rad"))

    def _evaluate(self, t_s: float) -> tuple[XY, XY]:
        angle = 2.0 * math.pi * check_time(t_s) / self.period_s + self.phase_rad
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

    def polyline(self, samples: int = CURVE_SAMPLES) -> FloatArray:
        """Return one lap sampled evenly in time, closed, shape ``(samples, 2)``."""
        times = np.linspace(0.0, self.period_s, samples)
        return np.array([self.point(float(t_s)) for t_s in times])

    def overlay_json(self, model: ArmModel) -> dict[str, Any]:
        """Return the overlay object (see the package docstring)."""
        points = [(float(x), float(y)) for x, y in self.polyline()]
        return overlay(self.kind, curve_xy=points)

    @classmethod
    def _from_fields(cls, fields: Mapping[str, Any]) -> PeriodicCurveTask:
        return cls(
            curve=fields["curve"],
            center_xy=check_xy(fields["center_xy"], "center_xy"),
            radius_xy=check_xy(fields["radius_xy"], "radius_xy"),
            period_s=fields["period_s"],
            phase_rad=fields.get("phase_rad", 0.0),
        )


@dataclass(frozen=True)
class ReferenceTrajectoryTask(TaskJson):
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
    required_keys: ClassVar[tuple[str, ...]] = ("times_s", "points_xy")

    times_s: tuple[float, ...]
    points_xy: tuple[XY, ...]

    def __post_init__(self) -> None:
        """Check the samples and store plain tuples."""
        raw: object = self.times_s
        if isinstance(raw, np.ndarray):
            raw = raw.tolist()
        if not isinstance(raw, list | tuple) or not raw:
            raise fail("times_s must be a non-empty list of numbers")
        checked = tuple(
            check_number(item, f"times_s[{i}]") for i, item in enumerate(raw)
        )
        if checked[0] < 0 or any(b <= a for a, b in itertools.pairwise(checked)):
            raise fail("times_s must be >= 0 and strictly increasing")
        points = check_xy_list(self.points_xy, "points_xy")
        if len(points) != len(checked):
            raise fail(f"expected {len(checked)} points_xy, found {len(points)}")
        object.__setattr__(self, "times_s", checked)
        object.__setattr__(self, "points_xy", points)

    def tip_reference(self, t_s: float) -> FloatArray:
        """Return the interpolated reference position at ``t_s``, shape ``(2,)``."""
        when = check_time(t_s)
        points = np.array(self.points_xy)
        return np.array(
            (
                np.interp(when, self.times_s, points[:, 0]),
                np.interp(when, self.times_s, points[:, 1]),
            )
        )

    def velocity(self, t_s: float) -> FloatArray:
        """Return the reference velocity (the segment's slope; 0 outside), m/s."""
        when = check_time(t_s)
        times = self.times_s
        if len(times) < 2 or when < times[0] or when >= times[-1]:
            return np.zeros(2)
        k = int(np.searchsorted(times, when, side="right")) - 1
        (x0, y0), (x1, y1) = self.points_xy[k], self.points_xy[k + 1]
        span = times[k + 1] - times[k]
        return np.array(((x1 - x0) / span, (y1 - y0) / span))

    def overlay_json(self, model: ArmModel) -> dict[str, Any]:
        """Return the overlay object (see the package docstring)."""
        return overlay(self.kind, reference_xy=self.points_xy)

    @classmethod
    def _from_fields(cls, fields: Mapping[str, Any]) -> ReferenceTrajectoryTask:
        times = fields["times_s"]
        if not isinstance(times, list | tuple):
            raise fail("times_s must be a list of numbers")
        return cls(
            times_s=tuple(times),
            points_xy=check_xy_list(fields["points_xy"], "points_xy"),
        )
