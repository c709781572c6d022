"""The built-in demo takes: a session of recordings that exercise every stream.

``write_demos(out_dir)`` simulates and records each take (and writes its
scenario as TOML beside it, so it can be edited and re-run with
``fsr-viewer simulate``). The takes:

1. ``01_reach``: computed-torque reach to a target, two cameras.
2. ``02_multi_target``: reaching controller, three targets, the active one
   switching at 1.8 s and 3.6 s.
3. ``03_periodic_curve``: the tip tracks an ellipse (computed torque).
4. ``04_reference_tracking``: inverse-dynamics feedforward along waypoints.
5. ``05_pushed``: PD holds a reach while a person pushes the tip (a force from
   outside the config: recorded, not replayable from the config alone).
6. ``06_reset_and_recalibration``: a scripted push, a generation reset at
   1.5 s, and the front camera zooming in at 1.0 s (a new calibration epoch).
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsr_core.simulators.planar_arm.recorder import ExternalPush, RunResult, record_run
from fsr_core.simulators.planar_arm.scenario import Scenario

__all__ = [
    "DEMO_NAMES",
    "DemoFile",
    "DemoTake",
    "demo_scenario",
    "demo_takes",
    "write_demos",
]

_BASE_Y_M = 1.15


def _publish_text(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all: a hidden sibling, then a link to the name.

    A stopped demo leaves no half-written scenario, and a file that appeared
    meanwhile is kept (the link fails instead of replacing it).
    """
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        with contextlib.suppress(FileExistsError):
            os.link(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _arm() -> dict[str, Any]:
    return {
        "base_m": [0.0, _BASE_Y_M],
        "gravity_mps2": [0.0, -9.81],
        "friction_nms_per_rad": 0.05,
        "enforce_limits": True,
        "links": [
            {
                "length_m": 0.45,
                "mass_kg": 1.2,
                "q_min_rad": -math.pi,
                "q_max_rad": math.pi,
            },
            {"length_m": 0.35, "mass_kg": 0.9, "q_min_rad": -2.6, "q_max_rad": 2.6},
            {"length_m": 0.25, "mass_kg": 0.5, "q_min_rad": -2.6, "q_max_rad": 2.6},
        ],
    }


def _camera(
    name: str,
    size: tuple[int, int],
    fov_deg: float,
    eye_m: list[float],
    look_at_m: list[float],
    rate_hz: float,
) -> dict[str, Any]:
    """Return a JPEG camera's table."""
    width, height = size
    return {
        "name": name,
        "width": width,
        "height": height,
        "fov_deg": fov_deg,
        "eye_m": eye_m,
        "look_at_m": look_at_m,
        "rate_hz": rate_hz,
        "codec": "jpeg",
    }


def _cameras(*, zoom_at_s: float | None = None) -> list[dict[str, Any]]:
    front = _camera(
        "front", (640, 480), 60.0, [0.1, -2.9, 1.15], [0.1, 0.0, 1.05], 30.0
    )
    if zoom_at_s is not None:
        front["calibration_changes"] = [{"time_s": zoom_at_s, "fov_deg": 42.0}]
    oblique = _camera(
        "oblique", (480, 360), 55.0, [1.9, -1.7, 1.9], [0.2, 0.0, 0.7], 15.0
    )
    return [front, oblique]


def _base(
    name: str, description: str, task: dict[str, Any], controller: dict[str, Any]
) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "duration_s": 3.6,
        "dt_s": 0.002,
        "arm": _arm(),
        "initial": {"q_rad": [-1.2, 0.6, 0.3], "dq_radps": [0.0, 0.0, 0.0]},
        "task": task,
        "controller": controller,
        "cameras": _cameras(),
        "recording": {
            "render_state_rate_hz": 30.0,
            "geometry_rate_hz": 30.0,
            "integrity": "fast",
        },
    }


def _take_documents() -> dict[str, dict[str, Any]]:
    computed = {"kind": "computed_torque", "kp": 400.0, "kd": 40.0}
    reach = {
        "kind": "reach",
        "target_xy": [0.55, 1.35],
        "tolerance_m": 0.02,
        "label": "goal",
    }
    takes: dict[str, dict[str, Any]] = {
        "01_reach": _base(
            "reach", "Computed-torque reach to one target.", reach, computed
        ),
        "02_multi_target": _base(
            "multi_target",
            "Reaching controller; the active target switches at 1.8 s and 3.6 s.",
            {
                "kind": "multi_target",
                "targets": [[0.6, 1.2], [0.2, 1.75], [-0.45, 1.3]],
                "switches": [[1.8, 1], [3.6, 2]],
                "tolerance_m": 0.03,
            },
            {"kind": "reaching", "stiffness_npm": 900.0, "damping_nspm": 60.0},
        ),
        "03_periodic_curve": _base(
            "periodic_curve",
            "The tip tracks an ellipse twice (computed torque).",
            {
                "kind": "periodic_curve",
                "curve": "ellipse",
                "center_xy": [0.35, 1.15],
                "radius_xy": [0.25, 0.15],
                "period_s": 1.8,
            },
            computed,
        ),
        "04_reference_tracking": _base(
            "reference_tracking",
            "Inverse-dynamics feedforward along a waypoint path.",
            {
                "kind": "reference_trajectory",
                "times_s": [0.0, 0.9, 1.8, 2.7, 3.6],
                "points_xy": [
                    [0.3, 0.6],
                    [0.6, 1.0],
                    [0.3, 1.5],
                    [-0.2, 1.4],
                    [-0.3, 0.9],
                ],
            },
            # Joint-space gains follow each joint's inertia: explicit damping is
            # stable while dt * max eig(M^-1 Kd) < 2 (here at most 1.1).
            {
                "kind": "inverse_dynamics_feedforward",
                "kp": [200.0, 80.0, 20.0],
                "kd": [12.0, 4.0, 0.8],
            },
        ),
        "05_pushed": _base(
            "pushed",
            "PD holds a reach; a person pushes the tip at 1.0-1.4 s and 2.2-2.5 s.",
            reach,
            {
                "kind": "pd",
                "kp": [160.0, 80.0, 20.0],
                "kd": [16.0, 5.0, 1.0],
                "gravity_compensation": True,
            },
        ),
        "06_reset_and_recalibration": _base(
            "reset_and_recalibration",
            "A scripted push, a generation reset at 1.5 s, "
            "the front camera zooming in at 1.0 s.",
            reach,
            computed,
        ),
    }
    takes["02_multi_target"]["duration_s"] = 5.4
    last = takes["06_reset_and_recalibration"]
    last["cameras"] = _cameras(zoom_at_s=1.0)
    last["pushes"] = [{"start_s": 0.8, "end_s": 1.0, "force_n": [0.0, -25.0]}]
    last["resets"] = [{"after_s": 1.5, "q_rad": [-1.0, 0.9, 0.2]}]
    return takes


DEMO_NAMES = tuple(_take_documents())

# The pushed take's hand: forces from outside its config.
_HAND = (
    ExternalPush(1.0, 1.4, (-18.0, 6.0)),
    ExternalPush(2.2, 2.5, (0.0, -22.0)),
)


@dataclass(frozen=True)
class DemoTake:
    """A demo recording's scenario and its interactive pushes."""

    name: str
    scenario: Scenario
    external_pushes: tuple[ExternalPush, ...] = ()


def demo_scenario(name: str) -> Scenario:
    """Return the scenario of demo take ``name``."""
    return Scenario.from_json(_take_documents()[name])


def demo_takes() -> list[DemoTake]:
    """Every demo take, in playlist order."""
    return [
        DemoTake(name, demo_scenario(name), _HAND if name == "05_pushed" else ())
        for name in DEMO_NAMES
    ]


@dataclass(frozen=True)
class DemoFile:
    """One demo take on disk: its recording, its scenario, and whether it is new."""

    recording: Path
    scenario: Path
    result: RunResult | None


def write_demos(
    out_dir: str | Path,
    *,
    names: tuple[str, ...] = DEMO_NAMES,
    progress: Callable[[str], None] | None = None,
) -> list[DemoFile]:
    """Record the demo takes into ``out_dir`` (created if needed).

    A take whose recording already exists is kept as it is (nothing is ever
    overwritten); its entry then has ``result=None``.

    Raises
    ------
    FsrError
        Writing failed (the take's final file is not created then).
    """
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for take in demo_takes():
        if take.name not in names:
            continue
        recording = folder / f"{take.name}.fsr"
        scenario = folder / f"{take.name}.toml"
        if not scenario.exists():
            _publish_text(scenario, take.scenario.to_toml())
        result = None
        if not recording.exists():
            if progress is not None:
                progress(take.name)
            result = record_run(
                take.scenario, recording, external_pushes=take.external_pushes
            )
        files.append(DemoFile(recording, scenario, result))
    return files
