"""Mesh files and primitive shapes as triangles, within budgets, cached per file.

Meshes are read with trimesh (STL, OBJ with its materials, Collada through
pycollada, and the rest trimesh reads). Before a file is read its size is
checked against :data:`MAX_MESH_BYTES`; after parsing, before anything is
kept, its triangles against :data:`MAX_MESH_TRIANGLES`. A file over either
is refused with one line and its link drawn as a frame. A Collada file's
``<unit meter>`` scale is applied, as ROS tools do.

A file read once is kept, by path, size and modification time, so a
playlist of takes of one robot reads its meshes once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.budgets import format_amount

__all__ = [
    "MAX_MESH_BYTES",
    "MAX_MESH_TRIANGLES",
    "MeshPart",
    "MeshRefusedError",
    "box",
    "cylinder",
    "read_mesh",
    "sphere",
]

#: Largest mesh file read, in bytes (checked before it is opened).
MAX_MESH_BYTES: Final = 64 << 20
#: Most triangles one mesh file may hold once parsed.
MAX_MESH_TRIANGLES: Final = 2_000_000
#: Mesh files kept after reading.
_CACHED_FILES: Final = 64
_CIRCLE_SECTIONS: Final = 24


@dataclass(frozen=True, eq=False)
class MeshPart:
    """Triangles of one material, in the mesh file's frame."""

    vertices_m: FloatArray
    faces: npt.NDArray[np.int64]
    rgba: tuple[float, float, float, float] | None
    """The file's own colour for the part, or ``None`` when it gives none."""


class MeshRefusedError(Exception):
    """A mesh file is missing, over its budget or unreadable: one line why."""


_cache: OrderedDict[tuple[str, int, int], tuple[MeshPart, ...]] = OrderedDict()
_cache_lock = threading.Lock()


def _colour(geometry: Any) -> tuple[float, float, float, float] | None:
    """Return the main colour trimesh found for ``geometry``, or ``None``."""
    visual = getattr(geometry, "visual", None)
    kind = getattr(visual, "kind", None)
    rgba: Any = None
    if kind == "texture":
        material = getattr(visual, "material", None)
        rgba = getattr(material, "main_color", None)
    elif kind == "face" and visual is not None:
        rgba = np.asarray(visual.face_colors, dtype=np.float64).mean(axis=0)
    elif kind == "vertex" and visual is not None:
        rgba = np.asarray(visual.vertex_colors, dtype=np.float64).mean(axis=0)
    if rgba is None:
        return None
    values = np.asarray(rgba, dtype=np.float64).ravel()
    if values.shape != (4,) or not np.isfinite(values).all():
        return None
    r, g, b, a = (float(item) for item in np.clip(values / 255.0, 0.0, 1.0))
    return (r, g, b, a)


def _unit_scale(scene: Any) -> float:
    """Return the Collada ``<unit meter>`` factor trimesh records but does not apply."""
    units = str(getattr(scene, "metadata", {}).get("units", "") or "")
    head, _, tail = units.partition("*")
    if tail.strip() != "meters":
        return 1.0
    try:
        factor = float(head)
    except ValueError:
        return 1.0
    return factor if np.isfinite(factor) and factor > 0.0 else 1.0


def _parse(path: Path) -> tuple[MeshPart, ...]:
    import trimesh

    try:
        scene = trimesh.load_scene(str(path))
        geometries = scene.dump(concatenate=False)
    except Exception as error:  # noqa: BLE001 - trimesh raises anything
        raise MeshRefusedError(f"{path}: cannot read mesh ({error})") from None
    scale = _unit_scale(scene)
    parts: list[MeshPart] = []
    triangles = 0
    for geometry in geometries:
        faces = getattr(geometry, "faces", None)
        vertices = getattr(geometry, "vertices", None)
        if faces is None or vertices is None or len(faces) == 0:
            continue
        triangles += len(faces)
        if triangles > MAX_MESH_TRIANGLES:
            raise MeshRefusedError(
                f"{path}: mesh has over {MAX_MESH_TRIANGLES:,} triangles, "
                "the budget of one mesh file"
            )
        points = np.asarray(vertices, dtype=np.float64) * scale
        indices = np.asarray(faces, dtype=np.int64)
        if (
            not np.isfinite(points).all()
            or indices.min() < 0
            or indices.max() >= len(points)
        ):
            raise MeshRefusedError(
                f"{path}: mesh has non-finite vertices or bad face indices"
            )
        parts.append(MeshPart(points, indices, _colour(geometry)))
    if not parts:
        raise MeshRefusedError(f"{path}: mesh holds no triangles")
    return tuple(parts)


def read_mesh(path: Path) -> tuple[MeshPart, ...]:
    """Return the triangles of mesh file ``path``, read once per file version.

    Raises
    ------
    MeshRefusedError
        The file is missing, over :data:`MAX_MESH_BYTES` or
        :data:`MAX_MESH_TRIANGLES`, or trimesh cannot read it.
    """
    try:
        status = path.stat()
    except OSError as error:
        raise MeshRefusedError(
            f"{path}: mesh file missing ({error.strerror})"
        ) from None
    if status.st_size > MAX_MESH_BYTES:
        raise MeshRefusedError(
            f"{path}: mesh file is {format_amount(status.st_size, in_bytes=True)}, "
            f"over the {format_amount(MAX_MESH_BYTES, in_bytes=True)} budget"
        )
    key = (str(path), status.st_size, status.st_mtime_ns)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    parts = _parse(path)
    with _cache_lock:
        _cache[key] = parts
        while len(_cache) > _CACHED_FILES:
            _cache.popitem(last=False)
    return parts


def box(size: FloatArray) -> MeshPart:
    """Return a box of edge lengths ``size`` centred on the origin."""
    corners = np.array(
        [[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
    ) * np.asarray(size, dtype=np.float64)
    faces = np.array(
        [
            [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
            [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],
        ],
        dtype=np.int64,
    )  # fmt: skip
    return MeshPart(corners, faces, None)


def cylinder(radius: float, length: float) -> MeshPart:
    """Return a closed cylinder along z, centred on the origin."""
    angles = np.linspace(0.0, 2.0 * np.pi, _CIRCLE_SECTIONS, endpoint=False)
    ring = np.stack([radius * np.cos(angles), radius * np.sin(angles)], axis=1)
    half = 0.5 * length
    vertices = np.concatenate(
        [
            np.column_stack([ring, np.full(_CIRCLE_SECTIONS, -half)]),
            np.column_stack([ring, np.full(_CIRCLE_SECTIONS, half)]),
            [[0.0, 0.0, -half], [0.0, 0.0, half]],
        ]
    )
    n = _CIRCLE_SECTIONS
    faces = []
    for i in range(n):
        j = (i + 1) % n
        faces += [
            [i, j, n + j],
            [i, n + j, n + i],
            [2 * n, j, i],
            [2 * n + 1, n + i, n + j],
        ]
    return MeshPart(vertices, np.array(faces, dtype=np.int64), None)


def sphere(radius: float) -> MeshPart:
    """Return a sphere (latitude and longitude rings) centred on the origin."""
    rings, sections = _CIRCLE_SECTIONS // 2, _CIRCLE_SECTIONS
    polar = np.linspace(0.0, np.pi, rings + 1)[1:-1]
    azimuth = np.linspace(0.0, 2.0 * np.pi, sections, endpoint=False)
    theta, phi = np.meshgrid(polar, azimuth, indexing="ij")
    body = np.stack(
        [np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)],
        axis=-1,
    ).reshape(-1, 3)
    vertices = np.concatenate([[[0.0, 0.0, 1.0]], body, [[0.0, 0.0, -1.0]]]) * radius
    bottom = len(vertices) - 1
    faces: list[list[int]] = []
    for s in range(sections):
        t = (s + 1) % sections
        faces.append([0, 1 + s, 1 + t])
        last = 1 + (rings - 2) * sections
        faces.append([bottom, last + t, last + s])
        for r in range(rings - 2):
            a, b = 1 + r * sections + s, 1 + r * sections + t
            faces += [[a, a + sections, b + sections], [a, b + sections, b]]
    return MeshPart(vertices, np.array(faces, dtype=np.int64), None)
