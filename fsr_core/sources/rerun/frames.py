"""``Transform3D`` as a transform tree: each entity posed in its parent entity.

An entity path is a frame; its parent is the path one part shorter
(``/world/camera`` in ``/world``), linked by the identity until a
``Transform3D`` says otherwise. A row's ``translation`` and rotation
(``quaternion``, else ``mat3x3``, column major as rerun stores it) give the
child's pose in its parent; a missing part is the identity. Static rows hold
for all time. ``relation`` ``ChildFromParent`` rows are inverted; scale is
not drawn (noted).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from fsr_core.calibration.rotations import quaternion_from_matrix
from fsr_core.sources.rerun.store import RecordingStore
from fsr_core.sources.rerun.time_bases import TimeBase
from fsr_core.sources.toolkit.message_kinds import Transform
from fsr_core.sources.toolkit.transform_tree import TransformTree

__all__ = ["MAX_TRANSFORM_ROWS", "framed_ancestor", "parent_of", "transform_tree"]

MAX_TRANSFORM_ROWS: Final = 1_000_000
_PARTS: Final = ("translation", "quaternion", "mat3x3", "relation", "scale")
_IDENTITY: Final = (0.0, 0.0, 0.0, 1.0)


def parent_of(entity: str) -> str:
    """Return the entity one part up (``/`` for a top-level entity)."""
    head = entity.rstrip("/").rsplit("/", 1)[0]
    return head or "/"


def framed_ancestor(tree: TransformTree, entity: str) -> str | None:
    """Return ``entity`` or its nearest ancestor the tree poses (``None``: none)."""
    known = set(tree.frames)
    current = entity
    while True:
        if current in known:
            return current
        if current in ("", "/"):
            return None
        current = parent_of(current)


def _first(value: Any) -> Any:
    if isinstance(value, list):
        return value[0] if value else None
    return value


def _rotation(quaternion: Any, matrix: Any) -> tuple[float, float, float, float]:
    if quaternion is not None and len(quaternion) == 4:
        q = np.asarray(quaternion, dtype=np.float64)
        norm = float(np.linalg.norm(q))
        if np.isfinite(norm) and norm > 0:
            x, y, z, w = (q / norm).tolist()
            return (x, y, z, w)
    if matrix is not None and len(matrix) == 9:
        rotation = np.asarray(matrix, dtype=np.float64).reshape(3, 3).T
        if np.isfinite(rotation).all():
            try:
                x, y, z, w = np.asarray(quaternion_from_matrix(rotation)).tolist()
            except (ValueError, ArithmeticError):
                return _IDENTITY
            return (x, y, z, w)
    return _IDENTITY


def _inverse(
    translation: tuple[float, float, float], rotation: tuple[float, float, float, float]
) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
    x, y, z, w = rotation
    conjugate = (-x, -y, -z, w)
    from fsr_core.calibration.rotations import matrix_from_quaternion

    matrix = np.asarray(matrix_from_quaternion(np.asarray(conjugate)))
    moved = -(matrix @ np.asarray(translation, dtype=np.float64))
    return (float(moved[0]), float(moved[1]), float(moved[2])), conjugate


def _rows_of(
    store: RecordingStore, entity: str, base: TimeBase
) -> list[tuple[int | None, dict[str, Any]]]:
    """Return ``(time or None for static, parts)`` per Transform3D row."""
    static_parts: dict[str, Any] = {}
    for part in _PARTS:
        rows = store.component(entity, f"Transform3D:{part}")
        if rows is None:
            continue
        values = rows.static_values()
        if values:
            static_parts[part] = _first(values[-1])
    static: list[tuple[int | None, dict[str, Any]]] = (
        [(None, static_parts)] if static_parts else []
    )
    timed: dict[int, dict[str, Any]] = {}
    for part in _PARTS:
        rows = store.component(entity, f"Transform3D:{part}")
        if rows is None:
            continue
        times, values = rows.on_timeline(base.name)
        for time, value in zip(times.tolist(), values, strict=True):
            timed.setdefault(int(time), {})[part] = _first(value)
    return static + [(time, parts) for time, parts in sorted(timed.items())]


def transform_tree(
    store: RecordingStore, base: TimeBase, notes: list[str]
) -> TransformTree:
    """Return the tree of every entity's ``Transform3D``, on the time base."""
    tree = TransformTree()
    entities = sorted(
        {
            rows.entity
            for part in _PARTS
            for rows in store.with_component(f"Transform3D:{part}")
        }
    )
    scaled = False
    added = 0
    for entity in entities:
        parent = parent_of(entity)
        rows = _rows_of(store, entity, base)
        moving = any(time is not None for time, _ in rows)
        for time, parts in rows:
            if added >= MAX_TRANSFORM_ROWS:
                notes.append(
                    f"more than {MAX_TRANSFORM_ROWS} transforms; the rest left out"
                )
                return tree
            raw = parts.get("translation")
            translation = (
                (float(raw[0]), float(raw[1]), float(raw[2]))
                if raw is not None and len(raw) == 3
                else (0.0, 0.0, 0.0)
            )
            rotation = _rotation(parts.get("quaternion"), parts.get("mat3x3"))
            if (
                str(parts.get("relation") or "")
                .lower()
                .startswith(("childfromparent", "2"))
            ):
                translation, rotation = _inverse(translation, rotation)
            scaled = scaled or parts.get("scale") is not None
            transform = Transform(parent, entity, translation, rotation)
            when = base.origin if time is None else time
            tree.add(when, transform, static=not moving)
            added += 1
    if scaled:
        notes.append("Transform3D scale is not drawn: shapes keep their logged size")
    return tree
