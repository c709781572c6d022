"""Task overlays: targets, periodic curves and reference paths from the task table.

The task is ``extra.source_config.task``, else ``extra.playback.task``. A task
this module cannot draw gives no overlay (and a note), never an error: the log
still plays.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import SchemaError
from fsr_core.logs.skelarm.kinematics import tip_points
from fsr_core.logs.skelarm.meta import number
from fsr_core.recording import PlanarKinematics, TaskOverlay

__all__ = ["CURVE_SAMPLES", "SUPPORTED_CURVES", "follow_active", "task_overlay"]


CURVE_SAMPLES = 256
"""Points of a periodic-curve overlay, over ``0..2*pi`` with both ends included."""
SUPPORTED_CURVES = ("circle", "ellipse", "lemniscate", "vertical_lemniscate", "rose")
"""``periodic_curve`` curves drawn; any other curve gives a task without a curve."""


def _point(raw: Any, what: str) -> tuple[float, float]:
    values = np.asarray(raw, dtype=np.float64)
    if values.shape != (2,) or not np.isfinite(values).all():
        raise ValueError(f"{what} must be two finite numbers (x, y), got {raw!r}")
    return float(values[0]), float(values[1])


#: skelarm's default target colour (its player draws every target in its own).
DEFAULT_TARGET_COLOR = "purple"


def _target(raw: Any) -> tuple[tuple[float, float], str, float | None, str]:
    """Parse a target, ``[x, y]`` or ``{pos, label?, color?, tolerance?}``."""
    if not isinstance(raw, dict):
        return _point(raw, "target"), "", None, DEFAULT_TARGET_COLOR
    label = "" if raw.get("label") is None else str(raw["label"])
    tolerance = None if raw.get("tolerance") is None else number(raw, "tolerance", 0)
    if tolerance is not None and tolerance < 0:
        raise ValueError(f"target tolerance {tolerance} is negative")
    color = raw.get("color")
    color = color if isinstance(color, str) and color else DEFAULT_TARGET_COLOR
    return _point(raw.get("pos"), "target pos"), label, tolerance, color


def _centered(params: Mapping[str, Any], x: FloatArray, y: FloatArray) -> FloatArray:
    center = _point(params.get("center", (0.0, 0.0)), "center")
    points: FloatArray = np.stack([x + center[0], y + center[1]], axis=1)
    return points


def _curve(params: Mapping[str, Any], theta: FloatArray) -> FloatArray | None:
    """Sample a skelarm periodic curve; ``None`` for a curve this module lacks.

    Parameters (skelarm's names and defaults): every curve takes ``center``
    (0, 0); ``circle``: ``radius`` (1), ``phase`` (0); ``ellipse``: ``a`` (1,
    along x), ``b`` (0.5, along y), ``phase`` (0); ``lemniscate`` (Bernoulli,
    horizontal): ``a`` (1); ``vertical_lemniscate`` (upright figure eight):
    ``a`` (0.5, width), ``b`` (1, height); ``rose`` ``r = a cos(k theta)``:
    ``a`` (1), ``k`` (3).
    """
    kind = params.get("curve")
    phase = number(params, "phase", 0.0)
    if kind == "circle":
        radius = number(params, "radius", 1.0)
        x, y = radius * np.cos(theta + phase), radius * np.sin(theta + phase)
    elif kind == "ellipse":
        a, b = number(params, "a", 1.0), number(params, "b", 0.5)
        x, y = a * np.cos(theta + phase), b * np.sin(theta + phase)
    elif kind == "lemniscate":
        scale = number(params, "a", 1.0) / (1.0 + np.sin(theta) ** 2)
        x, y = scale * np.cos(theta), scale * np.sin(theta) * np.cos(theta)
    elif kind == "vertical_lemniscate":
        a, b = number(params, "a", 0.5), number(params, "b", 1.0)
        x, y = a * np.sin(theta) * np.cos(theta), b * np.cos(theta)
    elif kind == "rose":
        rho = number(params, "a", 1.0) * np.cos(int(number(params, "k", 3)) * theta)
        x, y = rho * np.cos(theta), rho * np.sin(theta)
    else:
        return None
    return _centered(params, x, y)


def _pairs(points: FloatArray) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in points)


def _reference_values(task: Mapping[str, Any]) -> FloatArray:
    samples = task.get("reference_samples")
    if not isinstance(samples, dict):
        raise TypeError("no reference_samples table")
    values = np.asarray(samples.get("values"), dtype=np.float64)
    if values.ndim != 2 or len(values) == 0 or not np.isfinite(values).all():
        raise ValueError("reference_samples.values is not a table of finite rows")
    return values


def _reaching(task: Mapping[str, Any], kind: str, _: Any) -> TaskOverlay:
    point, label, tolerance, color = _target(task.get("target"))
    return TaskOverlay(
        kind, (point,), (label,), tolerance, active_index=0, target_colors=(color,)
    )


def _multi_target(task: Mapping[str, Any], kind: str, _: Any) -> TaskOverlay:
    raw = task.get("targets")
    if not isinstance(raw, list) or not raw:
        raise ValueError("targets is not a non-empty array")
    targets = [_target(item) for item in raw]
    active = int(number(task, "active", 0))
    active = active if 0 <= active < len(targets) else 0
    return TaskOverlay(
        kind,
        tuple(target[0] for target in targets),
        tuple(target[1] for target in targets),
        targets[active][2],
        active_index=active,
        target_colors=tuple(target[3] for target in targets),
    )


def _periodic(task: Mapping[str, Any], kind: str, _: Any) -> TaskOverlay:
    params = dict(task)
    if isinstance(task.get("params"), dict):
        params.update(task["params"])
    theta = np.linspace(0.0, 2.0 * np.pi, CURVE_SAMPLES)
    points = _curve(params, theta)
    return TaskOverlay(kind, curve_xy=() if points is None else _pairs(points))


def _tracking(task: Mapping[str, Any], kind: str, _: Any) -> TaskOverlay:
    values = _reference_values(task)
    if values.shape[1] < 2:
        raise ValueError("reference_samples.values rows need x and y")
    return TaskOverlay(kind, reference_xy=_pairs(values[:, :2]))


def _joint_tracking(
    task: Mapping[str, Any], kind: str, kinematics: PlanarKinematics | None
) -> TaskOverlay:
    if kinematics is None:
        raise ValueError("no skeleton to run forward kinematics with")
    values = _reference_values(task)
    if values.shape[1] != len(kinematics.lengths_m):
        raise ValueError("reference_samples rows do not match the joints")
    return TaskOverlay(kind, reference_xy=_pairs(tip_points(kinematics, values)))


_OverlayBuilder = Callable[[Mapping[str, Any], str, Any], TaskOverlay]
_OVERLAYS: dict[str, _OverlayBuilder] = {
    "reaching": _reaching,
    "multi_target_reaching": _multi_target,
    "periodic_curve": _periodic,
    "trajectory_tracking": _tracking,
    "joint_trajectory_tracking": _joint_tracking,
}


def _playback_task(extra: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    """Return ``extra.playback.task``, checked to be a table (``None`` if absent)."""
    playback = extra.get("playback")
    if playback is None:
        return None
    if not isinstance(playback, dict):
        raise SchemaError(
            f"extra.playback is {type(playback).__name__}, expected a table", path=name
        )
    task = playback.get("task")
    if task is None or isinstance(task, dict):
        return task or None  # an empty table draws nothing, as in skelarm
    raise SchemaError(
        f"extra.playback.task is {type(task).__name__}, expected a table", path=name
    )


def _task_table(
    meta: Mapping[str, Any], name: str
) -> tuple[dict[str, Any] | None, bool]:
    """Return the task table to draw and whether it is the playback-only one."""
    extra = meta.get("extra")
    extra = extra if isinstance(extra, dict) else {}
    config = extra.get("source_config")
    task = config.get("task") if isinstance(config, dict) else None
    playback = _playback_task(extra, name)  # checked even when source_config wins
    if isinstance(task, dict) and task:
        return task, False
    return playback, playback is not None


def _build(task: Mapping[str, Any], kinematics: PlanarKinematics | None) -> TaskOverlay:
    kind = task.get("type")
    build = _OVERLAYS.get(kind) if isinstance(kind, str) else None
    if build is None or not isinstance(kind, str):
        raise ValueError(
            f"task type {kind!r} is not one of {', '.join(sorted(_OVERLAYS))}"
        )
    overlay = build(task, kind, kinematics)
    if kind == "periodic_curve" and not overlay.curve_xy:
        raise ValueError(
            f"curve {task.get('curve')!r} is not one of {', '.join(SUPPORTED_CURVES)}"
        )
    return overlay


def task_overlay(
    meta: Mapping[str, Any],
    kinematics: PlanarKinematics | None,
    notes: list[str],
    name: str = "",
) -> TaskOverlay | None:
    """Return the overlay of the log's task, ``None`` (and a note) if none is drawn.

    ``extra.source_config.task`` wins over ``extra.playback.task``. A scenario
    task this module cannot draw only gives a note (the log still plays); the
    playback-only task exists only to be drawn, so there, as in skelarm's player,
    anything malformed is an error.

    Raises
    ------
    SchemaError
        ``extra.playback`` or its ``task`` is not a table, or the playback task
        has an unknown type or malformed content.
    """
    task, playback_only = _task_table(meta, name)
    if task is None:
        return None
    try:
        return _build(task, kinematics)
    except (ValueError, TypeError, OverflowError) as exc:
        if playback_only:
            raise SchemaError(
                f"malformed extra.playback.task: {exc}", path=name
            ) from exc
        notes.append(f"task {task.get('type')!r} not drawn: {exc}")
        return None


def follow_active(
    overlay: TaskOverlay | None, active: FloatArray | None
) -> TaskOverlay | None:
    """Start the emphasis at the recorded index (the channel wins over the config)."""
    if overlay is None or active is None or not overlay.targets_xy:
        return overlay
    first = int(np.rint(active[0]))
    index = first if 0 <= first < len(overlay.targets_xy) else None
    return replace(overlay, active_index=index)
