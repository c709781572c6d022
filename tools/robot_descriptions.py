"""Read the joints of the robot descriptions in ``tests/data/robots`` (stdlib only).

Shared by the scripts that make robot test data (``make_robot_data.py``,
``make_robot_mcap.py``, ``make_lerobot_panda.py``), each of which runs in its
own side venv: this module needs nothing but the standard library and numpy.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "PANDA_URDF",
    "ROBOTS_DIR",
    "Mimic",
    "UrdfJoint",
    "dumps_compact",
    "smooth_motion",
    "urdf_joints",
    "urdf_link_names",
]

ROBOTS_DIR: Final = Path(__file__).resolve().parent.parent / "tests" / "data" / "robots"
PANDA_URDF: Final = ROBOTS_DIR / "franka_panda" / "panda.urdf"


@dataclass(frozen=True)
class Mimic:
    """A URDF ``<mimic>``: ``value = multiplier * leader + offset``."""

    leader: str
    multiplier: float
    offset: float


@dataclass(frozen=True)
class UrdfJoint:
    """One joint of a URDF as written in the file (limits in rad or m)."""

    name: str
    kind: str
    parent: str
    child: str
    xyz: tuple[float, float, float]
    rpy: tuple[float, float, float]
    axis: tuple[float, float, float]
    lower: float | None
    upper: float | None
    mimic: Mimic | None

    @property
    def movable(self) -> bool:
        """Whether the joint has a coordinate (revolute, continuous, prismatic)."""
        return self.kind in ("revolute", "continuous", "prismatic")


def _floats3(text: str | None, default: str) -> tuple[float, float, float]:
    values = [float(part) for part in (text or default).split()]
    return values[0], values[1], values[2]


def _limit(element: ET.Element, key: str) -> float | None:
    limit = element.find("limit")
    if limit is None or element.get("type") == "continuous" or key not in limit.attrib:
        return None
    return float(limit.attrib[key])


def _mimic(element: ET.Element) -> Mimic | None:
    mimic = element.find("mimic")
    if mimic is None:
        return None
    return Mimic(
        leader=mimic.attrib["joint"],
        multiplier=float(mimic.get("multiplier", "1")),
        offset=float(mimic.get("offset", "0")),
    )


def urdf_joints(path: Path) -> list[UrdfJoint]:
    """Return every joint of the URDF at ``path`` in file order."""
    root = ET.parse(path).getroot()
    joints = []
    for element in root.findall("joint"):
        origin = element.find("origin")
        axis = element.find("axis")
        parent = element.find("parent")
        child = element.find("child")
        if parent is None or child is None:
            raise SystemExit(f"{path}: joint {element.get('name')} lacks parent/child")
        joints.append(
            UrdfJoint(
                name=element.attrib["name"],
                kind=element.attrib["type"],
                parent=parent.attrib["link"],
                child=child.attrib["link"],
                xyz=_floats3(None if origin is None else origin.get("xyz"), "0 0 0"),
                rpy=_floats3(None if origin is None else origin.get("rpy"), "0 0 0"),
                axis=_floats3(None if axis is None else axis.get("xyz"), "1 0 0"),
                lower=_limit(element, "lower"),
                upper=_limit(element, "upper"),
                mimic=_mimic(element),
            )
        )
    return joints


def urdf_link_names(path: Path) -> list[str]:
    """Return the names of every ``<link>`` of the URDF at ``path`` in file order."""
    return [link.attrib["name"] for link in ET.parse(path).getroot().findall("link")]


def smooth_motion(
    joints: list[UrdfJoint], times_s: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Return ``(positions, velocities)``, shape ``(len(times_s), len(joints))``.

    Each joint swings around the middle of its limits, over 35 % of its range
    (at most 1 rad), with its own period and phase; a mimic joint follows its
    leader. The motion stays inside every limit.
    """
    count = len(joints)
    positions = np.zeros((len(times_s), count))
    velocities = np.zeros((len(times_s), count))
    index = {joint.name: i for i, joint in enumerate(joints)}
    for i, joint in enumerate(joints):
        if joint.mimic is not None:
            continue
        lower = -math.pi if joint.lower is None else joint.lower
        upper = math.pi if joint.upper is None else joint.upper
        middle = 0.5 * (lower + upper)
        amplitude = min(0.35 * (upper - lower), 1.0)
        omega = 2.0 * math.pi / (1.5 + 0.25 * i)
        phase = 0.7 * i
        positions[:, i] = middle + amplitude * np.sin(omega * times_s + phase)
        velocities[:, i] = amplitude * omega * np.cos(omega * times_s + phase)
    for i, joint in enumerate(joints):
        if joint.mimic is not None:
            leader = index[joint.mimic.leader]
            positions[:, i] = (
                joint.mimic.multiplier * positions[:, leader] + joint.mimic.offset
            )
            velocities[:, i] = joint.mimic.multiplier * velocities[:, leader]
    return positions, velocities


def dumps_compact(value: object) -> str:
    """Return indented JSON with every innermost list on one line."""
    text = json.dumps(value, indent=1)
    innermost = re.compile(r"\[\n\s*([^\[\]{}]*?)\n\s*\]")
    return (
        innermost.sub(lambda m: "[" + re.sub(r",\n\s*", ", ", m.group(1)) + "]", text)
        + "\n"
    )
