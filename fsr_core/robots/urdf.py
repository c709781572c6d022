"""URDF descriptions, read with yourdfpy, into a :class:`RobotModel`.

The text is checked first: its size against :data:`MAX_DESCRIPTION_BYTES`,
then a strict XML parse with no document type (so no entities, no external
references) — yourdfpy would otherwise recover a cut file silently. yourdfpy
then reads links, joints, origins, axes, limits, mimics and visuals; meshes
are read here (see :mod:`fsr_core.robots.meshes`), so their paths are
resolved by :class:`ResourceRoots` and their sizes checked first.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import RobotModelError
from fsr_core.robots.description import (
    IDENTITY,
    JointType,
    LinkVisual,
    Mimic,
    RobotJoint,
    RobotModel,
)
from fsr_core.robots.meshes import (
    MeshPart,
    MeshRefusedError,
    box,
    cylinder,
    read_mesh,
    sphere,
)
from fsr_core.robots.resource_paths import ResourceRoots
from fsr_core.robots.tree_order import tree_ordered

__all__ = ["MAX_DESCRIPTION_BYTES", "MAX_LINKS", "MAX_ROBOT_TRIANGLES", "read_urdf"]

#: Largest description text read, in bytes.
MAX_DESCRIPTION_BYTES: Final = 16 << 20
#: Most links (and joints) one description may have.
MAX_LINKS: Final = 1_000
#: Most triangles of every mesh of one robot together; meshes past it are
#: refused (their links drawn as frames).
MAX_ROBOT_TRIANGLES: Final = 5_000_000

_TYPES: Final = {
    "revolute": JointType.REVOLUTE,
    "continuous": JointType.CONTINUOUS,
    "prismatic": JointType.PRISMATIC,
    "fixed": JointType.FIXED,
    "floating": JointType.FLOATING,
}
_DEFAULT_RGBA: Final = (0.7, 0.7, 0.72, 1.0)


def _checked_xml(text: bytes, where: str) -> None:
    """Refuse text that is not one well-formed XML document without a DTD."""
    from lxml import etree

    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
    )
    try:
        tree = etree.parse(io.BytesIO(text), parser)
    except etree.XMLSyntaxError as error:
        raise RobotModelError(f"not a well-formed URDF: {error}", path=where) from None
    if tree.docinfo.doctype:
        raise RobotModelError(
            "a URDF with a document type (DTD) is refused", path=where
        )
    if tree.getroot().tag != "robot":
        raise RobotModelError(
            f"not a URDF: the root element is <{tree.getroot().tag}>, not <robot>",
            path=where,
        )


def _array(value: Any, shape: tuple[int, ...], default: FloatArray) -> FloatArray:
    if value is None:
        return default
    array = np.asarray(value, dtype=np.float64)
    return array if array.shape == shape and np.isfinite(array).all() else default


def _joint(item: Any, index: dict[str, int], where: str) -> RobotJoint:
    kind = _TYPES.get(str(item.type))
    if kind is None:
        raise RobotModelError(
            f"joint {item.name!r}: type {item.type!r} is not supported", path=where
        )
    for end in (item.parent, item.child):
        if end not in index:
            raise RobotModelError(
                f"joint {item.name!r} names no link {end!r}", path=where
            )
    axis = _array(item.axis, (3,), np.array([1.0, 0.0, 0.0]))
    norm = float(np.linalg.norm(axis))
    if kind.moves and not norm > 1e-12:
        raise RobotModelError(f"joint {item.name!r} has a zero axis", path=where)
    limit = item.limit
    mimic = item.mimic
    return RobotJoint(
        name=str(item.name),
        type=kind,
        parent=index[item.parent],
        child=index[item.child],
        origin=_array(item.origin, (4, 4), IDENTITY),
        axis=axis / norm if norm > 0 else axis,
        lower=None if limit is None or limit.lower is None else float(limit.lower),
        upper=None if limit is None or limit.upper is None else float(limit.upper),
        mimic=None
        if mimic is None
        else Mimic(
            str(mimic.joint),
            1.0 if mimic.multiplier is None else float(mimic.multiplier),
            0.0 if mimic.offset is None else float(mimic.offset),
        ),
    )


def _check_total(triangles: int) -> None:
    if triangles > MAX_ROBOT_TRIANGLES:
        raise MeshRefusedError(
            f"the robot's meshes pass {MAX_ROBOT_TRIANGLES:,} triangles"
        )


class _Visuals:
    """Collects a description's visuals, warning once per mesh that fails."""

    def __init__(self, roots: ResourceRoots, where: str, named: dict[str, Any]) -> None:
        self.roots, self.where, self.named = roots, where, named
        self.visuals: list[LinkVisual] = []
        self.warnings: list[str] = []
        self.framed: set[int] = set()
        self.triangles = 0

    def _colour(self, visual: Any) -> tuple[float, float, float, float] | None:
        material = visual.material
        if material is None:
            return None
        colour = material.color
        if colour is None and material.name in self.named:
            colour = self.named[material.name].color
        if colour is None:
            return None
        rgba = np.asarray(colour.rgba, dtype=np.float64)
        if rgba.shape != (4,) or not np.isfinite(rgba).all():
            return None
        r, g, b, a = (float(item) for item in np.clip(rgba, 0.0, 1.0))
        return (r, g, b, a)

    def _parts(
        self, geometry: Any, link: str
    ) -> tuple[tuple[MeshPart, ...], FloatArray]:
        ones = np.ones(3)
        if geometry.box is not None:
            return (box(geometry.box.size),), ones
        if geometry.cylinder is not None:
            return (cylinder(geometry.cylinder.radius, geometry.cylinder.length),), ones
        if geometry.sphere is not None:
            return (sphere(geometry.sphere.radius),), ones
        if geometry.mesh is None:
            return (), ones
        reference = str(geometry.mesh.filename)
        path = self.roots.resolve(reference)
        if path is None:
            raise MeshRefusedError(
                f"{reference}: mesh not found under the package paths"
            )
        scale = geometry.mesh.scale
        factor = ones if scale is None else np.broadcast_to(np.asarray(scale, float), 3)
        return read_mesh(path), factor

    def add(self, link_index: int, link: str, visual: Any) -> None:
        """Add one ``<visual>`` of ``link``; a mesh that fails becomes a warning."""
        if visual.geometry is None:
            return
        try:
            parts, scale = self._parts(visual.geometry, link)
            count = sum(len(part.faces) for part in parts)
            _check_total(self.triangles + count)
        except MeshRefusedError as error:
            self.warnings.append(
                f"{self.where}: link {link!r}: {error}; drawn as a frame"
            )
            self.framed.add(link_index)
            return
        self.triangles += count
        origin = _array(visual.origin, (4, 4), IDENTITY)
        colour = self._colour(visual)
        for number, part in enumerate(parts):
            points = (part.vertices_m * scale) @ origin[:3, :3].T + origin[:3, 3]
            self.visuals.append(
                LinkVisual(
                    link=link_index,
                    name=f"{link}/{visual.name or 'visual'}/{number}",
                    vertices_m=points,
                    faces=part.faces,
                    rgba=colour or part.rgba or _DEFAULT_RGBA,
                )
            )


def read_urdf(text: bytes, where: str, roots: ResourceRoots) -> RobotModel:
    """Read URDF ``text`` (from ``where``: a file, or a recording's topic).

    Raises
    ------
    RobotModelError
        The text is too big, not well-formed XML, not a URDF yourdfpy reads,
        or its links and joints do not form one tree.
    """
    if len(text) > MAX_DESCRIPTION_BYTES:
        raise RobotModelError(
            f"description is {len(text):,} bytes, "
            f"over the {MAX_DESCRIPTION_BYTES:,} budget",
            path=where,
        )
    try:
        import lxml  # noqa: F401 - checked here, used below
        import trimesh  # noqa: F401
        import yourdfpy
    except ImportError:
        raise RobotModelError(
            "URDF robots need yourdfpy and trimesh: pip install 'fsr-viewer[robots]'",
            path=where,
        ) from None
    _checked_xml(text, where)

    try:
        parsed = yourdfpy.URDF.load(
            io.BytesIO(text), build_scene_graph=False, load_meshes=False
        ).robot
    except Exception as error:  # noqa: BLE001 - yourdfpy raises anything on bad input
        raise RobotModelError(f"cannot read the URDF: {error}", path=where) from None
    if len(parsed.links) > MAX_LINKS or len(parsed.joints) > MAX_LINKS:
        raise RobotModelError(f"more than {MAX_LINKS:,} links or joints", path=where)
    links = tuple(str(link.name) for link in parsed.links)
    if len(set(links)) != len(links):
        raise RobotModelError("two links share a name", path=where)
    index = {name: number for number, name in enumerate(links)}
    joints = [_joint(item, index, where) for item in parsed.joints]
    if len({joint.name for joint in joints}) != len(joints):
        raise RobotModelError("two joints share a name", path=where)
    root, ordered = tree_ordered(links, joints, where)
    visuals = _Visuals(
        roots, where, {str(m.name): m for m in parsed.materials if m.name}
    )
    for number, link in enumerate(parsed.links):
        for visual in link.visuals:
            visuals.add(number, links[number], visual)
    return RobotModel(
        name=str(parsed.name or Path(where).stem),
        path=where,
        links=links,
        root=root,
        joints=ordered,
        visuals=tuple(visuals.visuals),
        warnings=tuple(visuals.warnings),
        framed_links=frozenset(visuals.framed),
    )
