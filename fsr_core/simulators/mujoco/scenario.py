"""MuJoCo scenario files: the model, its initial state, control, cameras, rates.

A MuJoCo scenario is a TOML document with ``simulator = "mujoco"``::

    simulator = "mujoco"
    name = "reach_arm"
    model = "reach_arm.xml"        # MJCF, relative to the TOML file
    duration_s = 3.0

    [initial]                      # a keyframe, or qpos / qvel (default: qpos0)
    keyframe = "home"

    [[control]]                    # one authored chunk on some actuators
    start_s = 0.0
    actuators = ["shoulder", "elbow"]   # default: every actuator
    times_s = [0.0, 1.0]
    values = [[0.0, 0.0], [0.6, -0.4]]
    interpolation = "linear"       # or "zero_order_hold"
    terminal_policy = "hold"       # or "zero", "controller_default"

    [[cameras]]                    # an MJCF <camera> rendered offscreen
    name = "overview"
    width = 320
    height = 240
    rate_hz = 30.0
    codec = "jpeg"                 # or "png", "rgb24"

    [targets]                      # MJCF sites drawn as targets by the player
    sites = ["target_a"]
    radius_m = 0.03

    [recording]
    render_state_rate_hz = 30.0
    geometry_rate_hz = 30.0
    applied_every_n_steps = 10
    integrity = "structural"

    [render]                       # renderer cost switches (off: fast on a CPU)
    shadows = false
    reflections = false
    multisamples = 0

The time step, integrator and gravity are the MJCF's own. :meth:`to_json` is
the resolved form stored in the recording's metadata (the model is named by
its digest; its files are embedded beside it), so a run re-simulates from its
recording alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from fsr_core.control import Interpolation, TerminalPolicy
from fsr_core.errors import FsrError, SchemaError
from fsr_core.simulation.model_files import ModelFiles, collect_model_files
from fsr_core.simulation.scenario_document import (
    FieldTable,
    check_run_bounds,
    read_scenario_document,
)

__all__ = [
    "SCENARIO_FORMAT",
    "CameraSpec",
    "ControlSpec",
    "MujocoScenario",
    "RecordingSpec",
    "RenderSettings",
    "load_mujoco_scenario",
]

SCENARIO_FORMAT: Final = "fsr.mujoco.scenario/1"
_TOP_KEYS: Final = (
    "format", "simulator", "name", "description", "model", "duration_s", "initial",
    "control", "cameras", "targets", "recording", "render",
)  # fmt: skip
_CODECS: Final = ("jpeg", "png", "rgb24")


def _known(table: Any, keys: tuple[str, ...], where: str) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise SchemaError(f"{where} must be a table")
    unknown = sorted(set(table) - set(keys))
    if unknown:
        raise SchemaError(f"{where} has unknown keys: {', '.join(unknown)}")
    return table


def _number(table: dict[str, Any], key: str, default: float | None = None) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SchemaError(f"{key} must be a number, found {value!r}")
    if not math.isfinite(float(value)):
        raise SchemaError(f"{key} must be finite")
    return float(value)


def _floats(value: Any, where: str) -> tuple[float, ...]:
    if not isinstance(value, list | tuple):
        raise SchemaError(f"{where} must be a list of numbers")
    return tuple(_number({where: item}, where) for item in value)


def _names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(
        isinstance(item, str) and item for item in value
    ):
        raise SchemaError(f"{where} must be a list of names")
    return tuple(value)


@dataclass(frozen=True)
class ControlSpec:
    """One authored chunk: set-points for some actuators from ``start_s`` on."""

    start_s: float
    times_s: tuple[float, ...]
    values: tuple[tuple[float, ...], ...]
    actuators: tuple[str, ...] = ()
    """Empty: every actuator of the model, in model order."""
    interpolation: Interpolation = Interpolation.LINEAR
    terminal_policy: TerminalPolicy = TerminalPolicy.HOLD

    @classmethod
    def from_json(cls, table: Any, index: int) -> ControlSpec:
        """Build from a ``[[control]]`` table."""
        where = f"[[control]] {index}"
        _known(
            table,
            (
                "start_s", "times_s", "values", "actuators", "interpolation",
                "terminal_policy",
            ),
            where,
        )  # fmt: skip
        values = table.get("values")
        if not isinstance(values, list) or not values:
            raise SchemaError(f"{where}: values must be a list of rows")
        try:
            return cls(
                start_s=_number(table, "start_s", 0.0),
                times_s=_floats(table.get("times_s", [0.0]), f"{where}: times_s"),
                values=tuple(_floats(row, f"{where}: values") for row in values),
                actuators=_names(table.get("actuators", []), f"{where}: actuators"),
                interpolation=Interpolation(table.get("interpolation", "linear")),
                terminal_policy=TerminalPolicy(table.get("terminal_policy", "hold")),
            )
        except ValueError as exc:
            raise SchemaError(f"{where}: {exc}") from exc

    def to_json(self) -> dict[str, Any]:
        """Return the resolved table."""
        return {
            "start_s": self.start_s,
            "times_s": list(self.times_s),
            "values": [list(row) for row in self.values],
            "actuators": list(self.actuators),
            "interpolation": self.interpolation.value,
            "terminal_policy": self.terminal_policy.value,
        }


@dataclass(frozen=True)
class CameraSpec(FieldTable):
    """An MJCF camera rendered at its own rate."""

    name: str
    width: int = 320
    height: int = 240
    rate_hz: float = 30.0
    codec: str = "jpeg"

    def __post_init__(self) -> None:
        """Check size, rate and codec."""
        for size in (self.width, self.height):
            if isinstance(size, bool) or not isinstance(size, int):
                raise SchemaError(f"camera {self.name!r}: sizes must be whole pixels")
            if not 8 <= size <= 4096:
                raise SchemaError(f"camera {self.name!r}: sizes must be in 8..4096")
        if not self.rate_hz > 0:
            raise SchemaError(f"camera {self.name!r}: rate_hz must be positive")
        if self.codec not in _CODECS:
            raise SchemaError(f"camera {self.name!r}: codec must be jpeg, png or rgb24")

    @classmethod
    def from_json(cls, table: Any) -> CameraSpec:
        """Build from a ``[[cameras]]`` table."""
        _known(table, ("name", "width", "height", "rate_hz", "codec"), "[[cameras]]")
        if not isinstance(table.get("name"), str):
            raise SchemaError("[[cameras]] needs the name of an MJCF camera")
        return cls(
            name=table["name"],
            width=table.get("width", 320),
            height=table.get("height", 240),
            rate_hz=_number(table, "rate_hz", 30.0),
            codec=str(table.get("codec", "jpeg")),
        )


@dataclass(frozen=True)
class RecordingSpec(FieldTable):
    """What is recorded besides the per-step observations."""

    render_state_rate_hz: float = 30.0
    geometry_rate_hz: float = 30.0
    applied_every_n_steps: int = 10
    integrity: str = "structural"

    @classmethod
    def from_json(cls, table: Any) -> RecordingSpec:
        """Build from ``[recording]``."""
        keys = (
            "render_state_rate_hz", "geometry_rate_hz", "applied_every_n_steps",
            "integrity",
        )  # fmt: skip
        _known(table, keys, "[recording]")
        every = table.get("applied_every_n_steps", 10)
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise SchemaError("recording.applied_every_n_steps must be at least 1")
        spec = cls(
            render_state_rate_hz=_number(table, "render_state_rate_hz", 30.0),
            geometry_rate_hz=_number(table, "geometry_rate_hz", 30.0),
            applied_every_n_steps=every,
            integrity=str(table.get("integrity", "structural")),
        )
        if min(spec.render_state_rate_hz, spec.geometry_rate_hz) <= 0:
            raise SchemaError("recording rates must be positive")
        if spec.integrity not in ("structural", "fast", "strong"):
            raise SchemaError("recording.integrity must be structural, fast or strong")
        return spec


@dataclass(frozen=True)
class RenderSettings(FieldTable):
    """Renderer switches; all off by default, the fast choice on a CPU."""

    shadows: bool = False
    reflections: bool = False
    multisamples: int = 0

    @classmethod
    def from_json(cls, table: Any) -> RenderSettings:
        """Build from ``[render]``."""
        _known(table, ("shadows", "reflections", "multisamples"), "[render]")
        samples = table.get("multisamples", 0)
        if isinstance(samples, bool) or not isinstance(samples, int):
            raise SchemaError("render.multisamples must be a whole number")
        if not 0 <= samples <= 16:
            raise SchemaError("render.multisamples must be in 0..16")
        return cls(
            bool(table.get("shadows", False)),
            bool(table.get("reflections", False)),
            samples,
        )


@dataclass(frozen=True)
class MujocoScenario:
    """A complete MuJoCo run: model files, initial state, control, cameras."""

    name: str
    model: ModelFiles
    duration_s: float
    description: str = ""
    keyframe: str | None = None
    qpos: tuple[float, ...] | None = None
    qvel: tuple[float, ...] | None = None
    control: tuple[ControlSpec, ...] = ()
    cameras: tuple[CameraSpec, ...] = ()
    target_sites: tuple[str, ...] = ()
    target_radius_m: float = 0.03
    recording: RecordingSpec = field(default_factory=RecordingSpec)
    render: RenderSettings = field(default_factory=RenderSettings)

    def __post_init__(self) -> None:
        """Check the duration and camera names."""
        check_run_bounds(self.duration_s, (camera.name for camera in self.cameras))

    def to_json(self) -> dict[str, Any]:
        """Return the resolved, self-contained config (model by digest)."""
        initial: dict[str, Any] = {}
        if self.keyframe is not None:
            initial["keyframe"] = self.keyframe
        if self.qpos is not None:
            initial["qpos"] = list(self.qpos)
        if self.qvel is not None:
            initial["qvel"] = list(self.qvel)
        return {
            "format": SCENARIO_FORMAT,
            "simulator": "mujoco",
            "name": self.name,
            "description": self.description,
            "model": {"entry": self.model.entry, "digest": self.model.digest},
            "duration_s": self.duration_s,
            "initial": initial,
            "control": [chunk.to_json() for chunk in self.control],
            "cameras": [camera.to_json() for camera in self.cameras],
            "targets": {
                "sites": list(self.target_sites),
                "radius_m": self.target_radius_m,
            },
            "recording": self.recording.to_json(),
            "render": self.render.to_json(),
        }

    @classmethod
    def from_json(cls, document: Any, model: ModelFiles) -> MujocoScenario:
        """Build from a parsed document and the model files it runs.

        Raises
        ------
        SchemaError
            An invalid or unknown key; the message names it.
        """
        table = _known(document, _TOP_KEYS, "the scenario")
        if table.get("format", SCENARIO_FORMAT) != SCENARIO_FORMAT:
            raise SchemaError(f"format must be {SCENARIO_FORMAT!r}")
        if table.get("simulator", "mujoco") != "mujoco":
            raise SchemaError("simulator must be 'mujoco'")
        initial = _known(
            table.get("initial", {}), ("keyframe", "qpos", "qvel"), "[initial]"
        )
        targets = _known(table.get("targets", {}), ("sites", "radius_m"), "[targets]")
        controls = table.get("control", [])
        cameras = table.get("cameras", [])
        if not isinstance(controls, list) or not isinstance(cameras, list):
            raise SchemaError("[[control]] and [[cameras]] must be arrays of tables")
        keyframe = initial.get("keyframe")
        return cls(
            name=str(table.get("name", model.entry.rsplit(".", 1)[0])),
            description=str(table.get("description", "")),
            model=model,
            duration_s=_number(table, "duration_s", 1.0),
            keyframe=None if keyframe is None else str(keyframe),
            qpos=_floats(initial["qpos"], "initial.qpos")
            if "qpos" in initial
            else None,
            qvel=_floats(initial["qvel"], "initial.qvel")
            if "qvel" in initial
            else None,
            control=tuple(ControlSpec.from_json(c, i) for i, c in enumerate(controls)),
            cameras=tuple(CameraSpec.from_json(camera) for camera in cameras),
            target_sites=_names(targets.get("sites", []), "targets.sites"),
            target_radius_m=_number(targets, "radius_m", 0.03),
            recording=RecordingSpec.from_json(table.get("recording", {})),
            render=RenderSettings.from_json(table.get("render", {})),
        )


def load_mujoco_scenario(path: str | Path) -> MujocoScenario:
    """Read a MuJoCo scenario TOML and the model files it names.

    Raises
    ------
    SchemaError
        The TOML, the scenario or the model files are invalid or unreadable;
        the message names the file and the problem.
    """
    source = Path(path)
    document = read_scenario_document(source)
    try:
        model_name = document.get("model")
        if not isinstance(model_name, str) or not model_name:
            raise SchemaError("model must name the MJCF file (relative to the TOML)")
        model = collect_model_files(source.parent / model_name)
        return MujocoScenario.from_json(document, model)
    except FsrError as exc:
        raise exc.with_path(source) from exc.__cause__
