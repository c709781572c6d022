"""Axis triads: a frame of a scene drawn as thin red, green and blue bars.

Sources whose recordings place coordinate frames or links but carry no shape
(a transform tree, a trajectory's link poses) give each body one triad, sized
to the scene, so the scene view shows where every frame is and how it turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.recording import GeometryMesh

__all__ = ["AXIS_COLOURS", "BOX_FACES", "triad_length", "triad_meshes"]

AXIS_COLOURS: Final = (
    (0.90, 0.25, 0.22, 1.0),
    (0.30, 0.75, 0.30, 1.0),
    (0.25, 0.45, 0.95, 1.0),
)
"""x, y and z, as RGBA."""

BOX_FACES: Final = np.array(
    [
        [0, 1, 2], [0, 2, 3], [4, 6, 5], [4, 7, 6],
        [0, 4, 5], [0, 5, 1], [1, 5, 6], [1, 6, 2],
        [2, 6, 7], [2, 7, 3], [3, 7, 4], [3, 4, 0],
    ],
    dtype=np.int64,
)  # fmt: skip
"""The 12 triangles of a box whose 8 corners are, in order, ``(-x, -y)``,
``(+x, -y)``, ``(+x, +y)``, ``(-x, +y)`` at low z, then the same at high z."""


def _bar(axis: int, length: float, thickness: float) -> FloatArray:
    """Return the 8 corners of a thin bar from the origin along ``axis``."""
    low = np.full(3, -thickness / 2)
    high = np.full(3, thickness / 2)
    high[axis] = length
    low[axis] = 0.0
    corners: FloatArray = np.array(
        [
            [low[0], low[1], low[2]],
            [high[0], low[1], low[2]],
            [high[0], high[1], low[2]],
            [low[0], high[1], low[2]],
            [low[0], low[1], high[2]],
            [high[0], low[1], high[2]],
            [high[0], high[1], high[2]],
            [low[0], high[1], high[2]],
        ]
    )
    return corners


def triad_length(
    positions: FloatArray, *, share: float, shortest: float, longest: float
) -> float:
    """Return a bar length: ``share`` of the positions' spread, within bounds."""
    points = positions.reshape(-1, 3)
    finite = points[np.isfinite(points).all(axis=1)]
    spread = float(np.ptp(finite, axis=0).max()) if len(finite) else 0.0
    return min(max(spread * share, shortest), longest)


def triad_meshes(
    bodies: Sequence[str], length: float, *, thickness_share: float = 1 / 15
) -> tuple[GeometryMesh, ...]:
    """Return three bars (x, y, z) per body, named ``BODY:x`` and so on."""
    bars = [_bar(axis, length, length * thickness_share) for axis in range(3)]
    return tuple(
        GeometryMesh(
            name=f"{body}:{'xyz'[axis]}",
            body=index,
            kind="frame",
            vertices_m=bars[axis],
            faces=BOX_FACES,
            rgba=AXIS_COLOURS[axis],
        )
        for index, body in enumerate(bodies)
        for axis in range(3)
    )
