"""Planar-arm takes recorded by the built-in simulator, with defects placed on purpose.

``tests/`` is on ``sys.path``: ``from check_takes import record_check_takes``.
Every take is a short computed-torque reach (0.6 s, no camera but the one
that shows ``frozen`` never can: the simulator renders every frame) written
by the simulator's own recorder. The defects are the simulator's doing, set
through the scenario:

- ``clean_0`` ... ``clean_4``: targets a few centimetres apart;
- ``still``: the arm starts where the clean takes end, its target where its
  tip is, so it holds that pose;
- ``too_long``: a 2.4 s take;
- ``wrong_end``: the target is on the other side of the arm;
- ``jerky``: a 40 ms push of 400 N on the tip at 0.4 s;
- ``over_limit``: the elbow's lower limit is 0.8 rad, not enforced, and the
  arm starts at 0.6 rad: below it until the reach lifts it past.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from demo_recordings import record_demo_take

__all__ = ["CHECK_TAKES", "record_check_takes"]

_END_Q = (-0.7777, 1.5969, 0.75)
"""Where the clean takes end (read from them)."""
_LINKS = (0.45, 0.35, 0.25)


def _tip(q: tuple[float, ...], base_y: float) -> list[float]:
    x, y, angle = 0.0, base_y, 0.0
    for length, joint in zip(_LINKS, q, strict=True):
        angle += joint
        x += length * math.cos(angle)
        y += length * math.sin(angle)
    return [round(x, 6), round(y, 6)]


def _target(x: float, y: float) -> dict[str, Any]:
    return {"kind": "reach", "target_xy": [x, y], "tolerance_m": 0.02, "label": "goal"}


def _changes(name: str, base_y: float) -> dict[str, Any]:
    takes: dict[str, dict[str, Any]] = {
        f"clean_{n}": {"task": _target(0.55 + 0.01 * n, 1.35 - 0.01 * n)}
        for n in range(5)
    }
    takes |= {
        "still": {
            "task": _target(*_tip(_END_Q, base_y)),
            "initial": {"q_rad": list(_END_Q), "dq_radps": [0.0, 0.0, 0.0]},
        },
        "too_long": {"task": _target(0.56, 1.34), "duration_s": 2.4},
        "wrong_end": {"task": _target(-0.55, 1.2)},
        "jerky": {
            "task": _target(0.57, 1.33),
            "pushes": [{"start_s": 0.4, "end_s": 0.44, "force_n": [0.0, 400.0]}],
        },
        "over_limit": {"task": _target(0.555, 1.345)},
    }
    return takes[name]


def _edit(name: str) -> Any:
    if name != "over_limit":
        return None

    def edit(document: dict[str, Any]) -> None:
        document["arm"]["enforce_limits"] = False
        document["arm"]["links"][1]["q_min_rad"] = 0.8

    return edit


CHECK_TAKES = (
    "clean_0",
    "clean_1",
    "clean_2",
    "clean_3",
    "clean_4",
    "still",
    "too_long",
    "wrong_end",
    "jerky",
    "over_limit",
)


def record_check_takes(folder: Path) -> dict[str, Path]:
    """Record every take of :data:`CHECK_TAKES` into ``folder``; return their paths."""
    from fsr_core.simulators.planar_arm.demos import _take_documents

    base_y = float(_take_documents()["01_reach"]["arm"]["base_m"][1])
    paths = {}
    for name in CHECK_TAKES:
        changes = {"duration_s": 0.6, "cameras": [], **_changes(name, base_y)}
        paths[name] = record_demo_take(
            folder / f"{name}.fsr", "01_reach", _edit(name), **changes
        )
    return paths
