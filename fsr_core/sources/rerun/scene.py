"""``Points3D``, ``Boxes3D`` and ``LineStrips3D`` (and the frames) as the 3D scene.

Each entity with shapes is a body, posed where the transform tree puts it
(its nearest posed ancestor; the identity when none is); each frame of the
tree without shapes is drawn as an axis triad. Boxes are boxes (their
rotations are not drawn), points are small cubes (their radius, else a
share of the scene), line strips are thin bars along each segment. A shape
that changes over time is drawn as first logged (noted): the scene holds
fixed meshes on moving bodies. At most :data:`MAX_SHAPES` shapes are drawn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.recording import GeometryMesh, SceneGeometry
from fsr_core.sources.rerun.frames import framed_ancestor
from fsr_core.sources.rerun.store import RecordingStore
from fsr_core.sources.rerun.time_bases import TimeBase
from fsr_core.sources.toolkit.axis_triads import (
    BOX_FACES,
    triad_length,
    triad_meshes,
)
from fsr_core.sources.toolkit.frames_scene import frame_poses, sample_times
from fsr_core.sources.toolkit.transform_tree import TransformTree

__all__ = ["MAX_SHAPES", "scene_geometry"]

MAX_SHAPES: Final = 20_000
_SHAPES: Final = {
    "Points3D": "Points3D:positions",
    "Boxes3D": "Boxes3D:half_sizes",
    "LineStrips3D": "LineStrips3D:strips",
}
_DEFAULT_RGBA: Final = {
    "Points3D": (0.95, 0.75, 0.2, 1.0),
    "Boxes3D": (0.55, 0.6, 0.7, 1.0),
    "LineStrips3D": (0.3, 0.8, 0.9, 1.0),
}
_UNIT_CORNERS: Final = np.array(
    [[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1],
     [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]],
    dtype=np.float64,
)  # fmt: skip


def _box(center: FloatArray, half: FloatArray) -> FloatArray:
    corners: FloatArray = center + _UNIT_CORNERS * half
    return corners


def _bar(start: FloatArray, end: FloatArray, thickness: float) -> FloatArray | None:
    axis = end - start
    length = float(np.linalg.norm(axis))
    if not np.isfinite(length) or length <= 0:
        return None
    along = axis / length
    helper = (
        np.array([0.0, 0.0, 1.0]) if abs(along[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    )
    side = np.cross(along, helper)
    side /= np.linalg.norm(side)
    up = np.cross(along, side)
    half = thickness / 2
    corners = []
    for s_along, point in ((-1, start), (1, end)):
        del s_along
        for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            corners.append(point + a * half * side + b * half * up)
    ordered = np.asarray(corners)
    return ordered


def _rgba(colors: Any, kind: str) -> tuple[float, float, float, float]:
    if isinstance(colors, list) and colors and isinstance(colors[0], int):
        packed = int(colors[0]) & 0xFFFFFFFF
        channels = [(packed >> shift) & 0xFF for shift in (24, 16, 8, 0)]
        r, g, b, a = (value / 255.0 for value in channels)
        return (r, g, b, a if a > 0 else 1.0)
    return _DEFAULT_RGBA[kind]


def _first_row(
    store: RecordingStore, entity: str, component: str, base: TimeBase
) -> tuple[Any, bool]:
    """Return the first value logged (static first) and whether it changes."""
    rows = store.component(entity, component)
    if rows is None:
        return None, False
    static = rows.static_values()
    _, timed = rows.on_timeline(base.name)
    values = static[-1:] + timed
    return (values[0] if values else None), len(values) > 1


def _points(value: Any) -> FloatArray:
    if not isinstance(value, list) or not value:
        return np.zeros((0, 3))
    array = np.asarray(
        [p for p in value if p is not None and len(p) == 3], dtype=np.float64
    )
    finite: FloatArray = (
        array[np.isfinite(array).all(axis=1)] if array.size else np.zeros((0, 3))
    )
    return finite.reshape(-1, 3)


class _Shapes:
    def __init__(self, store: RecordingStore, base: TimeBase, notes: list[str]) -> None:
        self.store = store
        self.base = base
        self.notes = notes
        self.meshes: list[GeometryMesh] = []
        self.bodies: list[str] = []
        self.count = 0
        self.size = 0.02

    def _room(self) -> bool:
        if self.count >= MAX_SHAPES:
            return False
        self.count += 1
        return True

    def _value(self, entity: str, component: str) -> Any:
        value, changes = _first_row(self.store, entity, component, self.base)
        if changes and component in _SHAPES.values():
            self.notes.append(
                f"entity {entity[:80]!r}: its {component.split(':')[0]} change over "
                "time; drawn as first logged"
            )
        return value

    def add(self, kind: str, entity: str) -> None:
        """Add ``entity`` as a body with the shapes of its ``kind`` archetype."""
        body = len(self.bodies)
        self.bodies.append(entity)
        rgba = _rgba(self._value(entity, f"{kind}:colors"), kind)
        shapes = {"Boxes3D": self._boxes, "Points3D": self._points}
        for name, index, vertices in shapes.get(kind, self._strips)(entity):
            if not self._room():
                return
            self._mesh(entity, body, name, index, vertices, rgba)

    def _boxes(self, entity: str) -> Iterator[tuple[str, int, FloatArray]]:
        halves = _points(self._value(entity, "Boxes3D:half_sizes"))
        centers = _points(self._value(entity, "Boxes3D:centers"))
        for index, half in enumerate(halves):
            center = centers[index] if index < len(centers) else np.zeros(3)
            yield "box", index, _box(center, np.abs(half))

    def _points(self, entity: str) -> Iterator[tuple[str, int, FloatArray]]:
        positions = _points(self._value(entity, "Points3D:positions"))
        radii = self._value(entity, "Points3D:radii")
        for index, point in enumerate(positions):
            radius = self.size
            if isinstance(radii, list) and radii:
                found = radii[min(index, len(radii) - 1)]
                if isinstance(found, float) and 0 < found < 1e3:
                    radius = found
            yield "point", index, _box(point, np.full(3, radius))

    def _strips(self, entity: str) -> Iterator[tuple[str, int, FloatArray]]:
        strips = self._value(entity, "LineStrips3D:strips") or []
        for s_index, strip in enumerate(strips):
            points = _points(strip)
            for index in range(len(points) - 1):
                bar = _bar(points[index], points[index + 1], self.size)
                if bar is not None:
                    yield "line", s_index * 10_000 + index, bar

    def _mesh(
        self,
        entity: str,
        body: int,
        kind: str,
        index: int,
        vertices: FloatArray,
        rgba: tuple[float, float, float, float],
    ) -> None:
        self.meshes.append(
            GeometryMesh(
                name=f"{entity}:{kind}{index}",
                body=body,
                kind=kind,
                vertices_m=vertices,
                faces=BOX_FACES,
                rgba=rgba,
            )
        )


def _spread(store: RecordingStore, base: TimeBase) -> float:
    found = []
    for kind, component in _SHAPES.items():
        del kind
        for rows in store.with_component(component):
            value, _ = _first_row(store, rows.entity, component, base)
            if component == "LineStrips3D:strips" and isinstance(value, list):
                value = [p for strip in value if isinstance(strip, list) for p in strip]
            found.append(_points(value))
    points = np.concatenate(found) if found else np.zeros((0, 3))
    return float(np.ptp(points, axis=0).max()) if len(points) else 1.0


def scene_geometry(
    store: RecordingStore, base: TimeBase, tree: TransformTree, notes: list[str]
) -> SceneGeometry | None:
    """Return the scene of the recording's shapes and frames (``None``: none)."""
    shapes = _Shapes(store, base, notes)
    shapes.size = min(max(_spread(store, base) * 0.01, 0.003), 0.05)
    for kind, component in _SHAPES.items():
        for rows in store.with_component(component):
            if rows.entity not in shapes.bodies:
                shapes.add(kind, rows.entity)
    if shapes.count >= MAX_SHAPES:
        notes.append(f"more than {MAX_SHAPES} shapes; the rest are not drawn")
    shaped = set(shapes.bodies)
    frames = [frame for frame in tree.frames if frame not in shaped and frame != "/"]
    bodies = shapes.bodies + frames
    if not bodies:
        return None
    times = sample_times(tree, base.origin)
    poses = frame_poses(tree, [framed_ancestor(tree, body) for body in bodies], times)
    length = triad_length(poses[..., :3], share=0.08, shortest=0.05, longest=0.5)
    triads = [
        dataclasses.replace(mesh, body=mesh.body + len(shapes.bodies))
        for mesh in triad_meshes(frames, length)
    ]
    return SceneGeometry(
        bodies=tuple(bodies),
        meshes=(*shapes.meshes, *triads),
        times_s=base.play(times),
        poses=poses,
    )
