"""Fewer triangles for QPainter: vertex clustering on a grid.

Without OpenGL (:mod:`app.canvas.gl_solids`) the scene view paints
triangles one by one, far to near; a robot's meshes as shipped (a Franka:
135,000 triangles) are more than it can paint per frame. :func:`clustered`
merges the vertices in each cell of a grid into their mean and drops the
triangles that collapse, growing the cell until the mesh fits its share of
:data:`MAX_DRAWN_TRIANGLES`. Shapes keep their outline; fine detail (screw
heads, fillets) goes. The recording's meshes stay whole; only what QPainter
draws is thinned.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.recording import GeometryMesh

__all__ = [
    "DRAFT_TRIANGLES",
    "MAX_DRAWN_TRIANGLES",
    "clustered",
    "drawn_shares",
    "thinned",
]

#: Triangles QPainter paints per frame, over all the meshes of a scene.
MAX_DRAWN_TRIANGLES: Final = 24_000
#: Triangles of a draft: what OpenGL draws in the window while the picture
#: changes (a seek, playing, an orbit), before the whole meshes follow.
DRAFT_TRIANGLES: Final = 20_000
_GROWTH: Final = 1.4
_ROUNDS: Final = 40
#: Below this many vertices a triangle's three indices make one int64 key.
_ONE_KEY_VERTICES: Final = 2_000_000


def drawn_shares(counts: list[int], total: int = MAX_DRAWN_TRIANGLES) -> list[int]:
    """Return each mesh's share of ``total`` triangles, in proportion to its count.

    Meshes already small enough keep what they have; every share is at
    least 12 (a box).
    """
    whole = sum(counts)
    if whole <= total:
        return list(counts)
    return [min(count, max(12, int(total * count / whole))) for count in counts]


def clustered(
    vertices: FloatArray, faces: npt.NDArray[np.int64], target: int
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Return the mesh with at most ``target`` triangles (when it can be done)."""
    if len(faces) <= target or len(vertices) == 0:
        return vertices, faces
    low, high = vertices.min(axis=0), vertices.max(axis=0)
    extent = float(np.max(high - low))
    if not extent > 0.0:
        return vertices, faces
    cell = extent / max(2.0, np.sqrt(target / 2.0))
    result = (vertices, faces)
    for _ in range(_ROUNDS):
        cells = np.floor((vertices - low) / cell).astype(np.int64)
        span = cells.max(axis=0) + 1
        # One integer a cell: a 1-D unique is many times faster than rows.
        keys = (cells[:, 0] * span[1] + cells[:, 1]) * span[2] + cells[:, 2]
        _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
        merged = np.zeros((len(counts), 3))
        for axis in range(3):
            merged[:, axis] = np.bincount(inverse, vertices[:, axis], len(counts))
        merged /= counts[:, None]
        mapped = inverse[faces]
        alive = (
            (mapped[:, 0] != mapped[:, 1])
            & (mapped[:, 1] != mapped[:, 2])
            & (mapped[:, 0] != mapped[:, 2])
        )
        mapped = mapped[alive]
        ordered = np.sort(mapped, axis=1)
        size = len(counts)
        if size < _ONE_KEY_VERTICES:
            triangle_keys = (ordered[:, 0] * size + ordered[:, 1]) * size + ordered[
                :, 2
            ]
            _, first = np.unique(triangle_keys, return_index=True)
        else:  # three indices would not fit one int64
            _, first = np.unique(ordered, axis=0, return_index=True)
        result = (merged, mapped[np.sort(first)])
        if len(result[1]) <= target:
            break
        cell *= _GROWTH
    return result


def thinned(meshes: list[GeometryMesh], total: int) -> list[GeometryMesh]:
    """Return ``meshes`` thinned to about ``total`` triangles together.

    Each mesh gets its share (:func:`drawn_shares`); one within it is kept.
    """
    shares = drawn_shares([len(mesh.faces) for mesh in meshes], total)
    result = []
    for mesh, share in zip(meshes, shares, strict=True):
        vertices, faces = clustered(mesh.vertices_m, mesh.faces, share)
        result.append(replace(mesh, vertices_m=vertices, faces=faces))
    return result
