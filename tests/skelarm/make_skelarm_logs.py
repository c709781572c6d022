"""Write one log of every kind skelarm produces, with skelarm itself, into a folder.

Run by the skelarm tests (``python make_skelarm_logs.py OUT_DIR``) in a child
interpreter where skelarm imports; skelarm brings PyQt6, which never meets the
test process's PySide6. Every run is short (0.4 s of simulated time) so the
whole set takes a few seconds. The GUI log is made by skelarm's own
``SkelarmSimulator`` driven offscreen: a recording started, a mouse drag held
on the tip for part of the run, friction switched on halfway.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import skelarm

DURATION_S = 0.4

_LINKS = [
    {
        "length": 1.0,
        "mass": 1.0,
        "inertia": 0.1,
        "com": [0.5, 0.0],
        "limits": [-180.0, 180.0],
    },
    {
        "length": 0.8,
        "mass": 0.8,
        "inertia": 0.05,
        "com": [0.4, 0.0],
        "limits": [-180.0, 180.0],
    },
]
_TRACKING = {"type": "computed_torque", "kp": 200.0, "kd": 30.0}


def _config(
    task: dict[str, Any], controller: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    config = {
        "skeleton": {"base_length": 0.0, "link": _LINKS},
        "initial": {"q": [20.0, 40.0]},
        "task": {"duration": DURATION_S, **task},
        "simulator": {"dt": 0.005},
        "controller": controller or _TRACKING,
    }
    config.update(extra)
    return config


def _curve(curve: str, **params: float | list[float]) -> dict[str, Any]:
    return _config(
        {
            "type": "periodic_curve",
            "curve": curve,
            "center": [0.9, 0.2],
            "period": 2.0,
            **params,
        }
    )


SCENARIOS: dict[str, dict[str, Any]] = {
    "reach": _config(
        {"type": "reaching", "target": {"pos": [-0.45, 1.55], "tolerance": 0.02}}
    ),
    "multi_target": _config(
        {
            "type": "multi_target_reaching",
            "active": 1,
            "targets": [
                {"pos": [1.2, 0.4], "label": "A", "color": "purple", "tolerance": 0.03},
                {"pos": [0.3, 1.2], "label": "B", "color": "teal", "tolerance": 0.03},
                {
                    "pos": [-0.4, 0.9],
                    "label": "C",
                    "color": "orange",
                    "tolerance": 0.03,
                },
            ],
        },
        {"type": "virtual_spring_damper", "k_task": 150.0, "d_task": 25.0},
    ),
    "curve_circle": _curve("circle", radius=0.3),
    "curve_ellipse": _curve("ellipse", a=0.4, b=0.25),
    "curve_lemniscate": _curve("lemniscate", a=0.5),
    "curve_vertical_lemniscate": _curve("vertical_lemniscate", a=0.3, b=0.4),
    "curve_rose": _curve("rose", a=0.35, k=3),
    "base_offset_three_links": {
        **_config({"type": "reaching", "target": {"pos": [0.6, 0.9]}}),
        "skeleton": {
            "base_length": 0.05,
            "link": [*_LINKS, {**_LINKS[1], "length": 0.3}],
        },
        "initial": {"q": [10.0, 30.0, 20.0]},
    },
}


def _tip_reference(folder: Path) -> Path:
    """Write a recorded tip path (a ``tip`` channel), as skelarm's recorder does."""
    times = np.linspace(0.0, DURATION_S, 41)
    log = skelarm.StateLog(producer="trajectory_recorder")
    for time_s in times:
        angle = 0.8 + 0.5 * time_s
        log.record(time_s, tip=[1.2 * np.cos(angle), 1.2 * np.sin(angle)])
    path = folder / "teach_tip.sklog.npz"
    log.save(path)
    return path


def _points(arm: Any, q: Any) -> list[list[float]]:
    """Every joint and the tip of ``arm`` at ``q``, by skelarm's kinematics."""
    arm.q = np.asarray(q, dtype=np.float64)  # the setter runs forward kinematics
    return [[link.xe, link.ye] for link in arm.links]


def _overlay_truth(log: Any) -> dict[str, Any]:
    """Return what skelarm's player draws for the task, by skelarm's own API."""
    config = log.extra.get("source_config")
    if not config:
        return {}
    task = skelarm.Task.from_dict(config["task"])
    if task.type == "periodic_curve":
        curve = skelarm.build_curve(str(task.params["curve"]), task.params)
        theta = np.linspace(0.0, 2.0 * np.pi, 256)
        return {"path": np.array([curve(value) for value in theta])}
    samples = task.params.get("reference_samples")
    if samples is not None:
        values = np.atleast_2d(np.asarray(samples["values"], dtype=np.float64))
        if task.type == "joint_trajectory_tracking":
            arm = log.build_skeleton()
            return {"path": np.array([_points(arm, row)[-1] for row in values])}
        return {"path": values}
    if task.type == "multi_target_reaching":
        specs = skelarm.multi_target_specs(task)
        return {
            "targets": np.array([spec[0] for spec in specs]),
            "active": np.array(skelarm.active_target_index(task)),
        }
    return {
        "targets": np.atleast_2d(task.target),
        "tolerance": np.array(task.tolerance or np.nan),
    }


def _save(log: Any, path: Path) -> None:
    """Save ``log`` and, next to it, what skelarm computes from it (``.truth.npz``)."""
    log.save(path)
    q = log.channel("q")
    frames = sorted({0, len(q) // 2, len(q) - 1})
    arm = log.build_skeleton()
    truth = {
        "frames": np.array(frames),
        "points": np.array([_points(arm, q[frame]) for frame in frames]),
        **_overlay_truth(log),
    }
    np.savez(path.with_name(path.name.replace(".sklog.npz", ".truth.npz")), **truth)
    print(path.name, len(log), ",".join(log.channel_names))  # noqa: T201


def _gui_log(folder: Path) -> None:
    """Record an interactive run: a drag on the tip, then friction switched on."""
    from PyQt6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    scenario = skelarm.scenario_from_config(SCENARIOS["reach"])
    extra = skelarm.scenario_run_metadata(scenario, dt=0.002, enforce_limits=True)
    window = skelarm.SkelarmSimulator(
        scenario.skeleton, controller=scenario.controller, dt=0.002, log_extra=extra
    )
    window.start_recording()
    for tick in range(20):
        window.canvas.drag_point = (0.2, 1.6) if 3 <= tick < 9 else None
        window.friction = 0.0 if tick < 10 else 0.4
        window.step()
    assert window.state_log is not None
    _save(window.state_log, folder / "gui_push.sklog.npz")
    window.close()
    del app


def main() -> int:
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    for name, config in SCENARIOS.items():
        _save(
            skelarm.run_scenario(skelarm.scenario_from_config(config)),
            folder / f"{name}.sklog.npz",
        )
    tracking = {"type": "trajectory_tracking", "file": str(_tip_reference(folder))}
    _save(
        skelarm.run_scenario(skelarm.scenario_from_config(_config(tracking))),
        folder / "track_tip.sklog.npz",
    )
    joints = {
        "type": "joint_trajectory_tracking",
        "file": str(folder / "reach.sklog.npz"),
    }
    _save(
        skelarm.run_scenario(skelarm.scenario_from_config(_config(joints))),
        folder / "track_joints.sklog.npz",
    )
    reach = skelarm.scenario_from_config(SCENARIOS["reach"])
    programmatic = skelarm.simulate_controlled(
        reach.skeleton, reach.controller, duration=DURATION_S, dt=0.005
    )
    _save(programmatic, folder / "programmatic_noconfig.sklog.npz")
    _gui_log(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
