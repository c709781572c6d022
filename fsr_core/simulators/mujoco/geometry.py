"""MuJoCo geoms as triangle meshes in their body's frame, and body poses.

The player draws a recording's scene without MuJoCo, from the recorded
``scene.geometry`` streams the planar arm also writes: one mesh record per
visible geom (written once), in the frame of the body that carries it, and
the world pose of every body over time. Primitives are tessellated coarsely
(enough to read the scene, few triangles to paint); mesh geoms keep MuJoCo's
compiled vertices and faces. Each mesh record's metadata also gives the
primitive's type, size and colour, so a reader can redraw it exactly.
Geoms in group 3 and above (by MuJoCo's convention collision-only) and fully
transparent geoms are left out. An infinite plane is drawn as a square of
twice the model's extent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.calibration import matrices_from_quaternions
from fsr_core.simulators.mujoco.model_session import LoadedModel

__all__ = ["GeomMesh", "body_names", "body_poses", "geom_meshes"]

_SEGMENTS: Final = 16
_RINGS: Final = 8
_VISIBLE_GROUPS: Final = 3


@dataclass(frozen=True, eq=False)
class GeomMesh:
    """One geom as a mesh in its body's frame, with what it was."""

    geom: str
    body: str
    geom_type: str
    size: tuple[float, ...]
    rgba: tuple[float, ...]
    vertices: npt.NDArray[np.float32]
    faces: npt.NDArray[np.uint32]

    def record(self) -> dict[str, npt.NDArray[Any]]:
        """Return the arrays of the mesh record."""
        return {"vertices": self.vertices, "faces": self.faces}

    def metadata(self) -> dict[str, Any]:
        """Return the mesh record's metadata."""
        return {
            "mesh_id": self.geom,
            "body": self.body,
            "frame": "body",
            "geom_type": self.geom_type,
            "size": list(self.size),
            "rgba": list(self.rgba),
        }


def _grid_faces(rings: int, segments: int) -> npt.NDArray[np.uint32]:
    """Faces joining ``rings + 1`` rings of ``segments`` vertices each."""
    faces = []
    for ring in range(rings):
        for seg in range(segments):
            a = ring * segments + seg
            b = ring * segments + (seg + 1) % segments
            faces += [[a, b, b + segments], [a, b + segments, a + segments]]
    return np.array(faces, dtype=np.uint32)


def _round(
    radius: float, half_length: float
) -> tuple[FloatArray, npt.NDArray[np.uint32]]:
    """Build a sphere (``half_length`` 0) or capsule along z, rings bottom to top."""
    angles = np.linspace(0.0, 2.0 * math.pi, _SEGMENTS, endpoint=False)
    rows = []
    for ring in range(_RINGS + 1):
        polar = math.pi * ring / _RINGS - math.pi / 2.0  # -90 deg .. +90 deg
        shift = half_length if polar > 0 else -half_length if polar < 0 else 0.0
        z = radius * math.sin(polar) + shift
        r = radius * math.cos(polar)
        rows.append(
            np.column_stack(
                [r * np.cos(angles), r * np.sin(angles), np.full(_SEGMENTS, z)]
            )
        )
    if half_length > 0:  # split the equator so both halves keep their shape
        middle = _RINGS // 2
        low, high = rows[middle].copy(), rows[middle].copy()
        low[:, 2] -= half_length
        high[:, 2] += half_length
        rows[middle : middle + 1] = [low, high]
    return np.vstack(rows), _grid_faces(len(rows) - 1, _SEGMENTS)


def _cylinder(radius: float, half: float) -> tuple[FloatArray, npt.NDArray[np.uint32]]:
    angles = np.linspace(0.0, 2.0 * math.pi, _SEGMENTS, endpoint=False)
    ring = np.column_stack([radius * np.cos(angles), radius * np.sin(angles)])
    side = np.vstack(
        [np.column_stack([ring, np.full(_SEGMENTS, z)]) for z in (-half, half)]
    )
    vertices = np.vstack([side, [[0.0, 0.0, -half], [0.0, 0.0, half]]])
    faces = _grid_faces(1, _SEGMENTS).tolist()
    bottom, top = 2 * _SEGMENTS, 2 * _SEGMENTS + 1
    for seg in range(_SEGMENTS):
        nxt = (seg + 1) % _SEGMENTS
        faces += [[bottom, nxt, seg], [top, _SEGMENTS + seg, _SEGMENTS + nxt]]
    return vertices, np.array(faces, dtype=np.uint32)


def _box(half: FloatArray) -> tuple[FloatArray, npt.NDArray[np.uint32]]:
    corners = np.array(
        [[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=np.float64
    )
    faces = [
        [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
        [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],
    ]  # fmt: skip
    return corners * half, np.array(faces, dtype=np.uint32)


def _plane(half_x: float, half_y: float) -> tuple[FloatArray, npt.NDArray[np.uint32]]:
    vertices = np.array(
        [
            [-half_x, -half_y, 0.0],
            [half_x, -half_y, 0.0],
            [half_x, half_y, 0.0],
            [-half_x, half_y, 0.0],
        ]
    )
    return vertices, np.array([[0, 1, 2], [0, 2, 3]], dtype=np.uint32)


def _mesh(model: Any, mesh: int) -> tuple[FloatArray, npt.NDArray[np.uint32]]:
    vert, nvert = int(model.mesh_vertadr[mesh]), int(model.mesh_vertnum[mesh])
    face, nface = int(model.mesh_faceadr[mesh]), int(model.mesh_facenum[mesh])
    vertices = np.asarray(model.mesh_vert[vert : vert + nvert], dtype=np.float64)
    faces = np.asarray(model.mesh_face[face : face + nface], dtype=np.uint32)
    return vertices, faces


def _shape(
    loaded: LoadedModel, geom: int, kind: str
) -> tuple[FloatArray, npt.NDArray[np.uint32]] | None:
    model = loaded.model
    size = np.asarray(model.geom_size[geom], dtype=np.float64)
    if kind == "BOX":
        return _box(size)
    if kind == "SPHERE":
        return _round(float(size[0]), 0.0)
    if kind == "ELLIPSOID":
        vertices, faces = _round(1.0, 0.0)
        return vertices * size, faces
    if kind == "CAPSULE":
        return _round(float(size[0]), float(size[1]))
    if kind == "CYLINDER":
        return _cylinder(float(size[0]), float(size[1]))
    if kind == "PLANE":
        extent = 2.0 * float(model.stat.extent)
        return _plane(float(size[0]) or extent, float(size[1]) or extent)
    if kind == "MESH" and int(model.geom_dataid[geom]) >= 0:
        return _mesh(model, int(model.geom_dataid[geom]))
    return None


def body_names(loaded: LoadedModel) -> list[str]:
    """Name of every body, the world (body 0) first."""
    kind = loaded.mujoco.mjtObj.mjOBJ_BODY
    return [
        loaded.name(kind, body, f"body{body}") for body in range(loaded.model.nbody)
    ]


def geom_meshes(loaded: LoadedModel) -> list[GeomMesh]:
    """Every visible geom as a mesh in its body's frame, in geom order."""
    mujoco, model = loaded.mujoco, loaded.model
    bodies = body_names(loaded)
    meshes = []
    for geom in range(model.ngeom):
        if (
            int(model.geom_group[geom]) >= _VISIBLE_GROUPS
            or model.geom_rgba[geom][3] <= 0
        ):
            continue
        kind = mujoco.mjtGeom(int(model.geom_type[geom])).name.removeprefix("mjGEOM_")
        shape = _shape(loaded, geom, kind)
        if shape is None:
            continue
        vertices, faces = shape
        placed = (
            vertices
            @ matrices_from_quaternions(
                model.geom_quat[geom], scalar_first=True, normalise=False
            ).T
            + model.geom_pos[geom]
        )
        meshes.append(
            GeomMesh(
                geom=loaded.name(mujoco.mjtObj.mjOBJ_GEOM, geom, f"geom{geom}"),
                body=bodies[int(model.geom_bodyid[geom])],
                geom_type=kind.lower(),
                size=tuple(float(v) for v in model.geom_size[geom]),
                rgba=tuple(float(v) for v in model.geom_rgba[geom]),
                vertices=placed.astype(np.float32),
                faces=faces,
            )
        )
    return meshes


def body_poses(loaded: LoadedModel) -> FloatArray:
    """World pose ``[x, y, z, qx, qy, qz, qw]`` of every body, world first."""
    data = loaded.data
    quaternion_wxyz = np.asarray(data.xquat, dtype=np.float64)
    poses: FloatArray = np.column_stack(
        [
            np.asarray(data.xpos, dtype=np.float64),
            quaternion_wxyz[:, 1:],
            quaternion_wxyz[:, :1],
        ]
    )
    return poses
