"""The arm's planar kinematics from ``[skeleton]``, and tip positions.

skelarm mounts the arm at the plane origin, where a fixed base link of
``base_length`` runs along +x to the first joint (``(base_length, 0)``, as its
``Skeleton`` and its canvas do: the mount is ``mount_m``); each joint angle is
relative to the previous link. The centre of mass offset along the link is
``rgx``, and a non-zero ``rgy`` is left out and noted.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import SchemaError
from fsr_core.logs.skelarm.meta import number
from fsr_core.recording import PlanarKinematics

__all__ = ["skeleton_kinematics", "tip_points"]


def _limit(link: Mapping[str, Any], key: str) -> float:
    """Return a joint limit in radians, NaN when the link has none."""
    return math.nan if link.get(key) is None else number(link, key, None)


def skeleton_kinematics(
    meta: Mapping[str, Any], joints: int, name: str, notes: list[str]
) -> PlanarKinematics | None:
    """Return the arm's kinematics from ``[skeleton]``, ``None`` without one.

    Raises
    ------
    SchemaError
        ``[skeleton]`` has no links, a link count other than ``joints`` or a
        link value that is not a finite number.
    """
    skeleton = meta.get("skeleton")
    if skeleton is None:
        notes.append("no [skeleton]: the arm cannot be drawn")
        return None
    links = skeleton.get("links") if isinstance(skeleton, dict) else None
    if not isinstance(links, list) or not all(isinstance(x, dict) for x in links):
        raise SchemaError("[skeleton] has no [[skeleton.links]] tables", path=name)
    if len(links) != joints:
        raise SchemaError(
            f"[skeleton] has {len(links)} links but 'q' has {joints} joints",
            path=name,
        )
    try:
        lengths = [number(link, "length", None) for link in links]
        com = [
            number(link, "rgx", length / 2)
            for link, length in zip(links, lengths, strict=True)
        ]
        com_y = [number(link, "rgy", 0.0) for link in links]
        low = [_limit(link, "qmin") for link in links]
        high = [_limit(link, "qmax") for link in links]
        base_length = number(skeleton, "base_length", 0.0)
    except (ValueError, TypeError) as exc:
        raise SchemaError(f"[skeleton] link: {exc}", path=name) from exc
    for index, offset in enumerate(com_y):
        if offset != 0.0:
            notes.append(
                f"link {index + 1}: centre of mass rgy = {offset} m off the link "
                "axis is not drawn (only the along-link offset rgx is)"
            )
    return PlanarKinematics(
        lengths_m=np.array(lengths),
        base_m=(base_length, 0.0),
        mount_m=None if base_length == 0.0 else (0.0, 0.0),
        com_m=np.array(com),
        q_min_rad=np.array(low),
        q_max_rad=np.array(high),
    )


def tip_points(kinematics: PlanarKinematics, q: FloatArray) -> FloatArray:
    """Tip positions for each row of ``q``, shape ``(rows, 2)``."""
    angles = np.cumsum(q, axis=1)
    with np.errstate(all="ignore"):
        x = (kinematics.lengths_m * np.cos(angles)).sum(axis=1)
        y = (kinematics.lengths_m * np.sin(angles)).sum(axis=1)
    points: FloatArray = np.stack([x, y], axis=1) + np.asarray(kinematics.base_m)
    return points
