"""Scenario files: everything needed to run (and re-run) a planar-arm simulation.

A scenario is a TOML document (see ``docs/scenarios.md``) with these tables:

- top level: ``name``, ``description``, ``duration_s``, ``dt_s``;
- ``[arm]`` with ``[[arm.links]]`` (``length_m``, ``mass_kg``, optional
  ``inertia_kgm2``/``com_m`` (uniform rod when omitted), ``q_min_rad``,
  ``q_max_rad``), ``base_m``, ``gravity_mps2``, ``friction_nms_per_rad``,
  ``enforce_limits``;
- ``[initial]``: ``q_rad``, ``dq_radps``;
- ``[task]``: ``kind`` and its fields; ``[controller]``: ``kind`` and gains;
- ``[[cameras]]``: ``name``, ``width``, ``height``, ``fov_deg`` (or ``fx``/``fy``),
  ``eye_m``, ``look_at_m``, ``rate_hz``, ``codec``, optional distortion, and
  ``[[cameras.calibration_changes]]`` (``time_s``, new ``fov_deg`` or ``fx``/``fy``);
- ``[[pushes]]``: scripted external tip forces (``start_s``, ``end_s``,
  ``force_n``, plane coordinates);
- ``[[resets]]``: generation resets (``after_s`` into the current generation,
  optional new ``q_rad``); every generation runs ``duration_s`` unless a reset
  ends it earlier;
- ``[recording]``: ``render_state_rate_hz``, ``geometry_rate_hz``, ``integrity``,
  ``applied_every_n_ticks``.

:meth:`Scenario.resolved` is the self-contained form stored in every recording
(defaults filled in), so a recording can be re-run from its own metadata.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.calibration import CalibrationProfile, CameraPose, look_at
from fsr_core.errors import FsrError, SchemaError
from fsr_core.simulation.scenario_document import (
    FieldTable,
    check_run_bounds,
    read_scenario_document,
)
from fsr_core.simulators.planar_arm.controllers import controller_from_json
from fsr_core.simulators.planar_arm.model import ArmModel, ArmState, Link
from fsr_core.simulators.planar_arm.tasks import task_from_json
from fsr_core.simulators.planar_arm.toml_out import dumps_toml

__all__ = [
    "CameraConfig",
    "Push",
    "Reset",
    "Scenario",
    "load_scenario",
]

SCENARIO_FORMAT = "fsr.planar_arm.scenario/1"
_TOP_KEYS = (
    "format", "name", "description", "duration_s", "dt_s", "arm", "initial", "task",
    "controller", "cameras", "pushes", "resets", "recording",
)  # fmt: skip
_ARM_KEYS = (
    "links",
    "base_m",
    "gravity_mps2",
    "friction_nms_per_rad",
    "enforce_limits",
)
_CAMERA_KEYS = (
    "name", "width", "height", "fov_deg", "fx", "fy", "eye_m", "look_at_m", "rate_hz",
    "codec", "distortion_model", "distortion", "calibration_changes",
)  # fmt: skip


def _floats(value: Any, length: int, where: str) -> tuple[float, ...]:
    if not isinstance(value, list | tuple) or len(value) != length:
        raise SchemaError(f"{where} must be a list of {length} numbers")
    numbers = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int | float):
            raise SchemaError(f"{where} must hold numbers, found {item!r}")
        if not math.isfinite(float(item)):
            raise SchemaError(f"{where} must hold finite numbers")
        numbers.append(float(item))
    return tuple(numbers)


def _number(table: dict[str, Any], key: str, default: float | None = None) -> float:
    value = table.get(key, default)
    if value is None:
        raise SchemaError(f"{key} is missing")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SchemaError(f"{key} must be a number, found {value!r}")
    if not math.isfinite(float(value)):
        raise SchemaError(f"{key} must be finite")
    return float(value)


@dataclass(frozen=True)
class CalibrationChange:
    """A new set of intrinsics for a camera from ``time_s`` on (a new epoch)."""

    time_s: float
    """Sim time from which the new intrinsics hold, seconds."""
    fx: float
    """Focal length along x, pixels."""
    fy: float
    """Focal length along y, pixels."""


@dataclass(frozen=True)
class CameraConfig:
    """One software pinhole camera looking at the scene."""

    name: str
    width: int
    height: int
    fx: float
    fy: float
    eye_m: tuple[float, float, float]
    look_at_m: tuple[float, float, float]
    rate_hz: float = 30.0
    codec: str = "jpeg"
    distortion_model: str = "none"
    distortion: tuple[float, ...] = ()
    calibration_changes: tuple[CalibrationChange, ...] = ()

    def __post_init__(self) -> None:
        """Check the rate, codec and that the intrinsics and pose are valid."""
        if not self.rate_hz > 0:
            raise SchemaError(f"camera {self.name!r}: rate_hz must be positive")
        if self.codec not in ("jpeg", "png", "rgb24"):
            raise SchemaError(f"camera {self.name!r}: codec must be jpeg, png or rgb24")
        try:
            self.pose()
            self.profile()
        except ValueError as exc:
            raise SchemaError(f"camera {self.name!r}: {exc}") from exc

    def profile(
        self, fx: float | None = None, fy: float | None = None
    ) -> CalibrationProfile:
        """Return the intrinsics (optionally with other focal lengths)."""
        return CalibrationProfile(
            width=self.width,
            height=self.height,
            fx=self.fx if fx is None else fx,
            fy=self.fy if fy is None else fy,
            cx=self.width / 2.0,
            cy=self.height / 2.0,
            distortion_model=self.distortion_model,
            distortion=self.distortion,
        )

    def pose(self) -> CameraPose:
        """Return the pose (camera -> world) looking from ``eye_m`` at ``look_at_m``."""
        return look_at(self.eye_m, self.look_at_m)

    def to_json(self) -> dict[str, Any]:
        """Return the resolved camera table."""
        return {
            "name": self.name,
            "width": self.width,
            "height": self.height,
            "fx": self.fx,
            "fy": self.fy,
            "eye_m": list(self.eye_m),
            "look_at_m": list(self.look_at_m),
            "rate_hz": self.rate_hz,
            "codec": self.codec,
            "distortion_model": self.distortion_model,
            "distortion": list(self.distortion),
            "calibration_changes": [
                {"time_s": c.time_s, "fx": c.fx, "fy": c.fy}
                for c in self.calibration_changes
            ],
        }

    @classmethod
    def from_json(cls, table: dict[str, Any]) -> CameraConfig:
        """Build from a ``[[cameras]]`` table (``fov_deg`` or ``fx``/``fy``)."""
        _known(table, _CAMERA_KEYS, "[[cameras]]")
        width, height = _size(table, "width", 640), _size(table, "height", 480)
        fx, fy = _focal(table, width)
        changes = []
        for change in table.get("calibration_changes", []):
            _known(
                change,
                ("time_s", "fov_deg", "fx", "fy"),
                "[[cameras.calibration_changes]]",
            )
            cfx, cfy = _focal(change, width)
            changes.append(CalibrationChange(_number(change, "time_s"), cfx, cfy))
        return cls(
            name=str(table["name"]),
            width=width,
            height=height,
            fx=fx,
            fy=fy,
            eye_m=_floats(table.get("eye_m"), 3, "cameras.eye_m"),  # type: ignore[arg-type]
            look_at_m=_floats(table.get("look_at_m"), 3, "cameras.look_at_m"),  # type: ignore[arg-type]
            rate_hz=_number(table, "rate_hz", 30.0),
            codec=str(table.get("codec", "jpeg")),
            distortion_model=str(table.get("distortion_model", "none")),
            distortion=tuple(float(v) for v in table.get("distortion", [])),
            calibration_changes=tuple(sorted(changes, key=lambda c: c.time_s)),
        )


def _size(table: dict[str, Any], key: str, default: int) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 8192:
        raise SchemaError(f"cameras.{key} must be a whole number of pixels in 1..8192")
    return value


def _focal(table: dict[str, Any], width: int) -> tuple[float, float]:
    if "fov_deg" in table:
        fov = _number(table, "fov_deg")
        if not 1.0 < fov < 179.0:
            raise SchemaError("fov_deg must be between 1 and 179 degrees")
        focal = (width / 2.0) / math.tan(math.radians(fov) / 2.0)
        return focal, focal
    return _number(table, "fx"), _number(table, "fy", table.get("fx"))


@dataclass(frozen=True)
class Push:
    """A scripted external force at the tip, constant over ``[start_s, end_s)``."""

    start_s: float
    end_s: float
    force_n: tuple[float, float]

    def to_json(self) -> dict[str, Any]:
        """Return the resolved push table."""
        return {
            "start_s": self.start_s,
            "end_s": self.end_s,
            "force_n": list(self.force_n),
        }


@dataclass(frozen=True)
class Reset:
    """End the current generation ``after_s`` into it and start a new one."""

    after_s: float
    q_rad: tuple[float, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the resolved reset table."""
        return {
            "after_s": self.after_s,
            "q_rad": None if self.q_rad is None else list(self.q_rad),
        }


@dataclass(frozen=True)
class Recording(FieldTable):
    """What a run records besides the numeric observations and cameras."""

    render_state_rate_hz: float = 30.0
    geometry_rate_hz: float = 30.0
    integrity: str = "structural"
    applied_every_n_ticks: int = 1

    def __post_init__(self) -> None:
        """Refuse rates that would divide by zero or never sample."""
        for name in ("render_state_rate_hz", "geometry_rate_hz"):
            if not getattr(self, name) > 0:
                raise SchemaError(f"recording.{name} must be positive")
        if self.applied_every_n_ticks < 1:
            raise SchemaError("recording.applied_every_n_ticks must be at least 1")


@dataclass(frozen=True)
class Scenario:
    """A complete, resolved planar-arm scenario."""

    name: str
    model: ArmModel
    initial: ArmState
    task: dict[str, Any]
    controller: dict[str, Any]
    duration_s: float = 3.0
    dt_s: float = 0.002
    description: str = ""
    cameras: tuple[CameraConfig, ...] = ()
    pushes: tuple[Push, ...] = ()
    resets: tuple[Reset, ...] = ()
    recording: Recording = field(default_factory=Recording)

    def __post_init__(self) -> None:
        """Check clocks and sizes."""
        if not 0 < self.dt_s <= 0.1:
            raise SchemaError("dt_s must be in (0, 0.1]")
        check_run_bounds(self.duration_s, (camera.name for camera in self.cameras))
        if len(self.initial.q) != self.model.dof:
            raise SchemaError(
                f"initial.q_rad has {len(self.initial.q)} values "
                f"for {self.model.dof} joints"
            )
        # Resolved: the task and controller as their kinds define them, with
        # every default filled in, so a recording re-runs the same way even if a
        # default changes later.
        object.__setattr__(self, "task", task_from_json(self.task).to_json())
        controller = controller_from_json(self.controller).to_json()
        object.__setattr__(self, "controller", controller)

    @property
    def ticks(self) -> int:
        """Ticks in one full generation."""
        return round(self.duration_s / self.dt_s)

    def resolved(self) -> dict[str, Any]:
        """Return the self-contained config stored in recordings (re-runnable)."""
        return {
            "format": SCENARIO_FORMAT,
            "name": self.name,
            "description": self.description,
            "duration_s": self.duration_s,
            "dt_s": self.dt_s,
            "arm": self.model.to_json(),
            "initial": {
                "q_rad": self.initial.q.tolist(),
                "dq_radps": self.initial.dq.tolist(),
            },
            "task": self.task,
            "controller": self.controller,
            "cameras": [camera.to_json() for camera in self.cameras],
            "pushes": [push.to_json() for push in self.pushes],
            "resets": [reset.to_json() for reset in self.resets],
            "recording": self.recording.to_json(),
        }

    def to_toml(self) -> str:
        """Return the resolved config as a TOML scenario file."""
        document = self.resolved()
        arm = document["arm"]
        for link in arm["links"]:
            # The resolved form writes an unlimited joint as null; TOML says inf.
            for key, bound in (("q_min_rad", -math.inf), ("q_max_rad", math.inf)):
                if link[key] is None:
                    link[key] = bound
        return dumps_toml(
            document, header=f"FSR Viewer planar-arm scenario: {self.name}"
        )

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> Scenario:
        """Build a scenario from its resolved form or a hand-written TOML document."""
        try:
            return cls._from_json(document)
        except FsrError:
            raise
        except (
            KeyError,
            TypeError,
            ValueError,
            AttributeError,  # a table where a list belongs, or the reverse
            IndexError,
            OverflowError,
        ) as exc:
            raise SchemaError(f"scenario is malformed: {exc!r}") from exc

    @classmethod
    def _from_json(cls, document: dict[str, Any]) -> Scenario:
        _known(document, _TOP_KEYS, "the scenario's top level")
        if document.get("format", SCENARIO_FORMAT) != SCENARIO_FORMAT:
            raise SchemaError(
                f"format {document['format']!r} is not {SCENARIO_FORMAT!r}"
            )
        arm = _known(document["arm"], _ARM_KEYS, "[arm]")
        links = tuple(_link(item) for item in arm["links"])
        model = ArmModel(
            links=links,
            base_m=_floats(arm.get("base_m", [0.0, 0.0]), 2, "arm.base_m"),  # type: ignore[arg-type]
            gravity_mps2=_floats(
                arm.get("gravity_mps2", [0.0, -9.81]), 2, "arm.gravity_mps2"
            ),  # type: ignore[arg-type]
            friction_nms_per_rad=_number(arm, "friction_nms_per_rad", 0.0),
            enforce_limits=bool(arm.get("enforce_limits", True)),
        )
        initial = _known(
            document.get("initial", {}), ("q_rad", "dq_radps"), "[initial]"
        )
        q = _floats(
            initial.get("q_rad", [0.0] * len(links)), len(links), "initial.q_rad"
        )
        dq = _floats(
            initial.get("dq_radps", [0.0] * len(links)), len(links), "initial.dq_radps"
        )
        resets = tuple(
            Reset(
                _number(item, "after_s"),
                None
                if item.get("q_rad") is None
                else _floats(item["q_rad"], len(links), "resets.q_rad"),
            )
            for item in document.get("resets", [])
            if _known(item, ("after_s", "q_rad"), "[[resets]]")
        )
        pushes = tuple(
            Push(
                _number(item, "start_s"),
                _number(item, "end_s"),
                _floats(item["force_n"], 2, "pushes.force_n"),  # type: ignore[arg-type]
            )
            for item in document.get("pushes", [])
            if _known(item, ("start_s", "end_s", "force_n"), "[[pushes]]")
        )
        recording = _known(
            document.get("recording", {}),
            (
                "render_state_rate_hz",
                "geometry_rate_hz",
                "integrity",
                "applied_every_n_ticks",
            ),
            "[recording]",
        )
        return cls(
            name=str(document.get("name", "scenario")),
            description=str(document.get("description", "")),
            model=model,
            initial=ArmState(np.array(q), np.array(dq)),
            task=dict(document["task"]),
            controller=dict(document["controller"]),
            duration_s=_number(document, "duration_s", 3.0),
            dt_s=_number(document, "dt_s", 0.002),
            cameras=tuple(
                CameraConfig.from_json(c) for c in document.get("cameras", [])
            ),
            pushes=pushes,
            resets=resets,
            recording=Recording(
                render_state_rate_hz=_number(recording, "render_state_rate_hz", 30.0),
                geometry_rate_hz=_number(recording, "geometry_rate_hz", 30.0),
                integrity=str(recording.get("integrity", "structural")),
                applied_every_n_ticks=int(recording.get("applied_every_n_ticks", 1)),
            ),
        )


_LINK_KEYS = ("length_m", "mass_kg", "inertia_kgm2", "com_m", "q_min_rad", "q_max_rad")


def _known(table: Any, keys: tuple[str, ...], where: str) -> dict[str, Any]:
    """Refuse a misspelt key (``duraton_s`` would otherwise be silently ignored)."""
    if not isinstance(table, dict):
        raise SchemaError(f"{where} must be a table")
    unknown = sorted(set(table) - set(keys))
    if unknown:
        raise SchemaError(
            f"unknown key {unknown[0]!r} in {where} (known: {', '.join(keys)})"
        )
    return table


def _limit(value: Any, key: str, unlimited: float) -> float:
    """Return a joint limit: a number, or ``inf`` / null for an unlimited joint."""
    if value is None:
        return unlimited
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SchemaError(f"{key} must be a number, found {value!r}")
    number = float(value)
    if math.isnan(number) or (math.isinf(number) and number != unlimited):
        raise SchemaError(f"{key} must be a finite number or {unlimited}")
    return number


def _link(item: dict[str, Any]) -> Link:
    _known(item, _LINK_KEYS, "[[arm.links]]")
    length, mass = _number(item, "length_m"), _number(item, "mass_kg")
    # A resolved config writes an unlimited joint as null; TOML just leaves it out
    # (and then the link's default, +-pi, applies).
    limits = {
        key: _limit(item[key], key, -math.inf if key == "q_min_rad" else math.inf)
        for key in ("q_min_rad", "q_max_rad")
        if key in item
    }
    if "inertia_kgm2" not in item and "com_m" not in item:
        return Link.uniform_rod(length, mass, **limits)
    return Link(
        length_m=length,
        mass_kg=mass,
        inertia_kgm2=_number(item, "inertia_kgm2", mass * length**2 / 12.0),
        com_m=_number(item, "com_m", length / 2.0),
        **limits,
    )


def load_scenario(path: str | Path) -> Scenario:
    """Read a TOML scenario file.

    Raises
    ------
    SchemaError
        The file is not valid TOML or not a valid scenario; the message names
        the file and the problem.
    """
    source = Path(path)
    document = read_scenario_document(source)
    try:
        return Scenario.from_json(document)
    except FsrError as exc:
        raise exc.with_path(source) from exc.__cause__
