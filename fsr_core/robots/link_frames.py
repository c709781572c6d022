"""A link whose visual could not be read, drawn as a frame: three coloured bars.

A URDF's mesh that is nowhere under the package paths (an MCAP's
``/robot_description`` opened without ``--package-path``), or one over the
triangle budget, leaves its link without a shape. The link is drawn as its
frame instead: a red x, green y and blue z bar from its origin, sized to the
robot (a tenth of how far its links spread at rest, 2 to 15 cm), so the
robot still shows where each link is and how it turns. A description with
no visual at all (kinematics only) has every link drawn so.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.recording import GeometryMesh
from fsr_core.robots.description import RobotModel
from fsr_core.robots.meshes import box

__all__ = ["frame_meshes"]

_COLOURS: Final = (
    (0.90, 0.25, 0.22, 1.0),
    (0.30, 0.75, 0.30, 1.0),
    (0.25, 0.45, 0.95, 1.0),
)
"""x, y and z, as RGBA."""
_SHARE: Final = 0.1
_SHORTEST_M: Final = 0.02
_LONGEST_M: Final = 0.15


def _length(positions: FloatArray) -> float:
    finite = positions[np.isfinite(positions).all(axis=1)]
    spread = float(np.ptp(finite, axis=0).max()) if len(finite) else 0.0
    return min(max(spread * _SHARE, _SHORTEST_M), _LONGEST_M)


def frame_meshes(
    robot: RobotModel, rest_positions: FloatArray
) -> tuple[GeometryMesh, ...]:
    """Return the frame bars of every framed link, named ``LINK:x`` and so on.

    ``rest_positions`` are the links' positions ``(links, 3)`` in one frame,
    which size the bars. A robot that describes no visual has every link
    framed.
    """
    framed = robot.framed_links
    if not robot.visuals and not framed:
        framed = frozenset(range(len(robot.links))) - robot.hidden_links
    if not framed:
        return ()
    length = _length(rest_positions)
    bars = []
    for axis in range(3):
        size = np.full(3, length / 15)
        size[axis] = length
        part = box(size)
        offset = np.zeros(3)
        offset[axis] = length / 2
        bars.append((part.vertices_m + offset, part.faces))
    return tuple(
        GeometryMesh(
            name=f"{robot.links[link]}:{'xyz'[axis]}",
            body=link,
            kind="frame",
            vertices_m=bars[axis][0],
            faces=bars[axis][1],
            rgba=_COLOURS[axis],
        )
        for link in sorted(framed)
        for axis in range(3)
    )
