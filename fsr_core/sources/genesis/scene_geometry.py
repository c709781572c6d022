"""Meshes of a Genesis scene, read from the description its trajectory embeds.

The description (docs/genesis_trajectory.md, section 4) is a zip archive of
``scene.json`` and ``arrays.npz``; wherever the JSON declares an array it holds
the name of an ``arrays.npz`` member (``"pos": 12`` is member ``12.npy``).
:func:`read_description` reads it; :func:`link_meshes` turns the links' geoms
into triangle meshes in their link's frame;
:func:`fsr_core.sources.genesis.mesh_budget.place_meshes` chooses which are
drawn and puts them on the bodies of every environment.

How a mesh sits on its link follows Genesis's rigid solver (genesis-world
1.4.5, ``engine/solvers/rigid/abd/forward_kinematics.py``): a geom (collision
geometry, ``geoms``) or a visual geom (``vgeoms``) is posed on its link by its
own ``pos`` and ``quat`` (w, x, y, z) in the link's frame
(``func_update_geoms_link``, ``kernel_update_vgeoms``), and its mesh vertices
are in the geom's frame (``func_update_verts_for_geom`` places vertex ``v`` at
the geom's world pose applied to ``v``), so ``v`` lands at ``pos + R(quat) v``
in the link frame. The link pose the solver composes with is the link frame's
(``dyn_state.links.pos`` / ``.quat``), not the centre of mass's
(``links.i_pos``). For an MJCF robot ``pos`` / ``quat`` are MuJoCo's compiled
geom pose and the vertices MuJoCo's, in the frame MuJoCo moved the mesh to
(``utils/mjcf.py``, ``parse_geom``). A link gives its visual geoms and its
collision geoms, the latter standing in for the former when they would pass
the drawing budget; a link without visual geoms (a robot loaded without
visual meshes, as the Franka arm ``arm_exact`` of the test data) gives its
collision geoms. The kind of a collision geom is its ``type``; a visual geom
has none, so it takes the kind of the entity's primitive morph (``Box``,
``Sphere``, ...) or of a plane geom it shares its pose with, else ``mesh``. A
plane, infinite for Genesis (its mesh is a square kilometre), is drawn as a
square of half side ``plane_half_m`` through its origin, across the normal its
``data`` holds.

Colours: the entity's surface colour when one was given, else (visual geoms
only) the colour of the mesh's own surface, else a neutral grey for robot links
and a colour per entity for the others. The colours Genesis draws collision
geoms with are random and are not used.

The description is untrusted input. Every size it claims (the zip members,
each array from its ``.npy`` header) is checked against the memory budget
(:data:`fsr_core.budgets.MEMORY`) before it is read, and reads are bounded.
A description that does not read gives no meshes and a note; a geom that does
not (missing key, wrong shape or type, a value that is not finite, a face that
points past its vertices) is left out with a note (a stand-in collision geom
silently). Nothing but :class:`~fsr_core.errors.FsrError` leaves this module.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.budgets import MEMORY, check_budget
from fsr_core.calibration import matrices_from_quaternions
from fsr_core.errors import FormatError, FsrError
from fsr_core.logs.npy_header import NpyVersionError, read_npy_header
from fsr_core.sources.genesis.container import TrajectoryIndex
from fsr_core.sources.genesis.scene_names import (
    MAX_SCENE_JSON_BYTES,
    description_bytes,
)

__all__ = [
    "DAMAGE_ERRORS",
    "Description",
    "DescriptionArrays",
    "DescriptionError",
    "LinkEntry",
    "LinkMesh",
    "entity_names",
    "link_meshes",
    "parse_description",
    "plane_half_size",
    "read_description",
]

DAMAGE_ERRORS: Final = (
    LookupError,
    TypeError,
    ValueError,
    ArithmeticError,
    AttributeError,
    RuntimeError,
    EOFError,
    OSError,
    zipfile.BadZipFile,
    zlib.error,
)
"""What parsing damaged bytes, JSON or arrays may raise besides FsrError."""

_GEOM_NAMES: Final = (
    "PLANE",
    "SPHERE",
    "ELLIPSOID",
    "CYLINDER",
    "CAPSULE",
    "BOX",
    "MESH",
    "TERRAIN",
)
_KINDS: Final = {
    "PLANE": "plane",
    "SPHERE": "sphere",
    "ELLIPSOID": "ellipsoid",
    "CYLINDER": "cylinder",
    "CAPSULE": "capsule",
    "BOX": "box",
    "MESH": "mesh",
    "TERRAIN": "mesh",
}
_MORPH_KINDS: Final = {
    "Plane": "plane",
    "Box": "box",
    "Sphere": "sphere",
    "Cylinder": "cylinder",
}
_ROBOT_RGBA: Final = (0.66, 0.69, 0.74, 1.0)
_ENTITY_RGBA: Final = (
    (0.33, 0.55, 0.85, 1.0),
    (0.92, 0.56, 0.24, 1.0),
    (0.40, 0.70, 0.42, 1.0),
    (0.74, 0.42, 0.70, 1.0),
    (0.86, 0.74, 0.28, 1.0),
)
_NOTED_REASONS: Final = 3
_UP: Final = np.array([0.0, 0.0, 1.0])
_MAX_CLAIM: Final = 1 << 62
_JSON_EXPANSION: Final = 10
"""Bytes of memory per byte of ``scene.json`` once parsed, for the budget."""


class DescriptionError(FormatError):
    """The scene description, or a part of it, is not what Genesis writes."""


@dataclass(frozen=True)
class LinkEntry:
    """One link of the description, in solver order."""

    index: int
    """Index among every link of the scene (the solver's order)."""
    entity: int
    parent: int
    """Solver index of the parent link, -1 for a root."""
    name: str
    entity_data: dict[str, Any]
    data: dict[str, Any]


@dataclass(frozen=True)
class LinkMesh:
    """One drawable mesh on one link, vertices in the link's frame."""

    link: int
    name: str
    kind: str
    vertices_m: FloatArray
    faces: npt.NDArray[np.int64]
    rgba: tuple[float, float, float, float]
    entity: int = 0
    """Index of the link's entity in the description."""
    stand_in: bool = False
    """A collision mesh of a link that has visual ones: drawn only in their
    place, when the visual meshes would pass the drawing budget."""


class DescriptionArrays:
    """The members of ``arrays.npz``, each read once when first asked for.

    Every member's claimed size (zip entry and ``.npy`` header) is checked
    against the memory budget, counting every array read so far, before its
    bytes are read; only plain numeric arrays are accepted (no pickles).
    """

    def __init__(self, archive: zipfile.ZipFile, path: Path | None) -> None:
        self._archive = archive
        self._path = path
        self._loaded: dict[int, npt.NDArray[Any]] = {}
        self._bytes = 0

    def raw(self, key: Any, what: str) -> npt.NDArray[Any]:
        """Return member ``key`` as stored (raises DescriptionError, LimitExceeded)."""
        if isinstance(key, bool) or not isinstance(key, int) or key < 0:
            raise DescriptionError(f"{what} is not an array reference")
        if key not in self._loaded:
            try:
                self._loaded[key] = self._read(key, what)
            except DAMAGE_ERRORS as exc:
                raise DescriptionError(
                    f"{what}: array {key} does not read ({type(exc).__name__})"
                ) from exc
        return self._loaded[key]

    def _read(self, key: int, what: str) -> npt.NDArray[Any]:
        try:
            member = self._archive.getinfo(f"{key}.npy")
        except KeyError:
            raise DescriptionError(f"{what}: array {key} is missing") from None
        check_budget(
            MEMORY,
            self._bytes + member.file_size,
            "the arrays of the scene description",
            path=self._path,
        )
        with self._archive.open(member) as handle:
            try:
                shape, fortran, dtype = read_npy_header(handle)
            except NpyVersionError as exc:
                raise DescriptionError(
                    f"{what}: array {key} is .npy {exc.version}"
                ) from None
            if dtype.hasobject or dtype.kind not in "biuf":
                raise DescriptionError(f"{what}: array {key} is not numeric")
            nbytes = math.prod(shape) * dtype.itemsize
            if nbytes > _MAX_CLAIM:
                raise DescriptionError(f"{what}: array {key} claims {nbytes} bytes")
            check_budget(
                MEMORY,
                self._bytes + nbytes,
                "the arrays of the scene description",
                path=self._path,
            )
            data = handle.read(nbytes)
        if len(data) != nbytes:
            raise DescriptionError(f"{what}: array {key} is cut short")
        self._bytes += nbytes
        flat = np.frombuffer(data, dtype=dtype)
        array: npt.NDArray[Any] = (
            flat.reshape(shape[::-1]).T if fortran else flat.reshape(shape)
        )
        return array

    def floats(self, key: Any, shape: tuple[int | None, ...], what: str) -> FloatArray:
        """Return member ``key`` as finite float64 of ``shape`` (None: any size)."""
        raw = self.raw(key, what)
        if raw.ndim != len(shape) or any(
            want is not None and have != want
            for have, want in zip(raw.shape, shape, strict=True)
        ):
            raise DescriptionError(f"{what} has shape {raw.shape}")
        values = raw.astype(np.float64)
        if not np.isfinite(values).all():
            raise DescriptionError(f"{what} is not finite")
        return values

    def faces(self, key: Any, n_vertices: int, what: str) -> npt.NDArray[np.int64]:
        """Return member ``key`` as (M, 3) int64 indices below ``n_vertices``."""
        raw = self.raw(key, what)
        if raw.ndim != 2 or raw.shape[1] != 3 or raw.dtype.kind not in "iu":
            raise DescriptionError(f"{what} has shape {raw.shape} ({raw.dtype})")
        if raw.size and (int(raw.min()) < 0 or int(raw.max()) >= n_vertices):
            raise DescriptionError(f"{what} points past the {n_vertices} vertices")
        return raw.astype(np.int64)


@dataclass(frozen=True, eq=False)
class Description:
    """A readable scene description: its links in solver order and its arrays."""

    links: tuple[LinkEntry, ...]
    arrays: DescriptionArrays
    geom_types: dict[int, str] = field(default_factory=dict)
    """Geom type codes by number, from the description's own schema."""


def _read_member(
    archive: zipfile.ZipFile, name: str, limit: int, path: Path, expand: int = 1
) -> bytes:
    """Return member ``name``, its claimed size (times ``expand``) checked first."""
    member = archive.getinfo(name)
    check_budget(
        MEMORY, expand * member.file_size, f"the {name} of the description", path=path
    )
    if member.file_size > limit:
        raise DescriptionError(f"{name} claims {member.file_size} bytes")
    with archive.open(member) as handle:
        data = handle.read(member.file_size + 1)
    if len(data) != member.file_size:
        raise DescriptionError(f"{name} is not the size its entry states")
    return data


def _geom_types(scene: dict[str, Any]) -> dict[int, str]:
    schema = scene.get("schema")
    declared = schema.get("GEOM_TYPE") if isinstance(schema, dict) else None
    if isinstance(declared, dict) and all(
        isinstance(code, int) and isinstance(name, str)
        for name, code in declared.items()
    ):
        return {code: name for name, code in declared.items()}
    return dict(enumerate(_GEOM_NAMES))


def _links(scene: dict[str, Any]) -> tuple[LinkEntry, ...]:
    entities = scene["held"]["scene"]["entities"]
    if not isinstance(entities, list):
        raise DescriptionError("the entities are not a list")
    found: list[LinkEntry] = []
    for number, entity in enumerate(entities):
        links = entity["links"]
        if not isinstance(links, list):
            raise DescriptionError(f"entity {number} has no list of links")
        start = len(found)
        for local, link in enumerate(links):
            parent = link["parent_idx"]
            if type(parent) is not int or not -1 <= parent < local:
                raise DescriptionError(f"link {local} of entity {number}: bad parent")
            found.append(
                LinkEntry(
                    index=len(found),
                    entity=number,
                    parent=-1 if parent < 0 else start + parent,
                    name=str(link.get("name") or f"link{len(found)}"),
                    entity_data=entity,
                    data=link,
                )
            )
    return tuple(found)


def parse_description(blob: bytes, path: Path) -> Description:
    """Return the description held in the zip ``blob``.

    Raises
    ------
    FsrError
        The zip, ``scene.json`` or its list of links does not read (a
        :class:`DescriptionError`), or a member is over the memory budget.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(blob))
        text = _read_member(
            archive, "scene.json", MAX_SCENE_JSON_BYTES, path, _JSON_EXPANSION
        )
        scene = json.loads(text.decode("utf-8"))
        npz = _read_member(archive, "arrays.npz", MEMORY.limit(), path)
        arrays = DescriptionArrays(zipfile.ZipFile(io.BytesIO(npz)), path)
        return Description(_links(scene), arrays, _geom_types(scene))
    except FsrError:
        raise
    except DAMAGE_ERRORS as exc:
        raise DescriptionError(
            f"the scene description does not read ({type(exc).__name__})"
        ) from exc


def entity_names(description: Description) -> list[str]:
    """Return each entity's name (``""`` where it has none), by entity index."""
    names: dict[int, str] = {}
    for link in description.links:
        name = link.entity_data.get("name")
        names.setdefault(link.entity, name if isinstance(name, str) else "")
    return [names.get(number, "") for number in range(max(names, default=-1) + 1)]


def read_description(index: TrajectoryIndex) -> tuple[Description | None, str]:
    """Return the description of a trajectory, or None and why it cannot be used."""
    try:
        return parse_description(description_bytes(index), index.path), ""
    except FsrError as exc:
        return None, f"scene description not used: {exc.reason}"


def _square(
    normal: FloatArray, half_m: float
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Return the 4 corners and 2 faces of a square across ``normal``."""
    normal = normal / np.linalg.norm(normal)
    helper = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.eye(3)[1]
    first = np.cross(normal, helper)
    first /= np.linalg.norm(first)
    second = np.cross(normal, first)
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64)
    vertices = half_m * (corners[:, :1] * first + corners[:, 1:] * second)
    return vertices, np.array([[0, 1, 2], [0, 2, 3]], dtype=np.int64)


def _colour(value: Any) -> tuple[float, float, float, float] | None:
    """Return an RGB(A) list of numbers in [0, 1] as RGBA, else None."""
    if not isinstance(value, list) or len(value) not in (3, 4):
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        return None
    numbers = [float(v) for v in value] + [1.0] * (4 - len(value))
    if not all(math.isfinite(v) for v in numbers):
        return None
    r, g, b, a = (min(max(v, 0.0), 1.0) for v in numbers)
    return r, g, b, max(a, 0.2)


def _values(item: Any, *keys: str) -> Any:
    """Walk ``{"values": ...}`` options objects down ``keys``; None when absent."""
    for key in keys:
        if not isinstance(item, dict):
            return None
        item = item.get("values", item)
        item = item.get(key) if isinstance(item, dict) else None
    return item


def _rgba(
    link: LinkEntry, mesh: dict[str, Any], visual: bool, palette: int
) -> tuple[float, float, float, float]:
    given = _colour(_values(link.entity_data.get("surface"), "color"))
    if given is None and visual:
        given = _colour(_values(mesh.get("surface"), "diffuse_texture", "color"))
    if given is not None:
        return given
    if link.data.get("is_robot") is True:
        return _ROBOT_RGBA
    return _ENTITY_RGBA[palette % len(_ENTITY_RGBA)]


@dataclass
class _Parse:
    """What parsing the geoms of a description collects."""

    description: Description
    plane_half_m: float
    meshes: list[LinkMesh] = field(default_factory=list)
    failed: int = 0
    reasons: list[str] = field(default_factory=list)

    def fail(self, where: str, reason: str) -> None:
        self.failed += 1
        text = f"{where}: {reason}"
        if len(self.reasons) < _NOTED_REASONS and text not in self.reasons:
            self.reasons.append(text)


def _geom_kind(parse: _Parse, geom: dict[str, Any]) -> str:
    code = geom["type"]
    name = parse.description.geom_types.get(code) if isinstance(code, int) else code
    kind = _KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise DescriptionError(f"unknown geom type {code!r}")
    return kind


_Plane = tuple[FloatArray, FloatArray]
"""A collision plane of a link: its pose (pos + quat) and its normal."""


def _visual_kind(
    link: LinkEntry, pose: FloatArray, planes: list[_Plane]
) -> tuple[str, FloatArray]:
    """Return a visual geom's kind, and its normal when it is a plane's visual."""
    for plane_pose, normal in planes:
        if np.allclose(pose, plane_pose, atol=1e-9):
            return "plane", normal
    morphs = link.entity_data.get("morphs")
    kind = "mesh"
    if isinstance(morphs, list) and len(morphs) == 1 and isinstance(morphs[0], dict):
        kind = _MORPH_KINDS.get(str(morphs[0].get("@")), "mesh")
    return ("mesh" if kind == "plane" else kind), _UP


def _plane_normal(parse: _Parse, geom: dict[str, Any], what: str) -> FloatArray:
    """Return a plane geom's normal (its ``data``) in the geom frame."""
    key = geom.get("data")
    if key is None:
        return _UP
    data = parse.description.arrays.floats(key, (None,), f"{what} data")
    normal = data[:3] if len(data) >= 3 else np.zeros(3)
    return normal if float(np.linalg.norm(normal)) > 1e-9 else _UP


def _geom_pose(parse: _Parse, geom: dict[str, Any], what: str) -> FloatArray:
    """Return a geom's pose on its link: ``x y z`` then ``w x y z``."""
    arrays = parse.description.arrays
    pos = arrays.floats(geom["pos"], (3,), f"{what} pos")
    quat = arrays.floats(geom["quat"], (4,), f"{what} quat")
    if float(np.linalg.norm(quat)) < 1e-9:
        raise DescriptionError(f"{what} quat is zero")
    return np.concatenate([pos, quat])


def _one_mesh(
    parse: _Parse,
    link: LinkEntry,
    geom: dict[str, Any],
    visual: bool,
    planes: list[_Plane],
) -> LinkMesh:
    label = "visual" if visual else "collision"
    what = f"{link.name} {label} geom"
    pose = _geom_pose(parse, geom, what)
    if visual:
        kind, normal = _visual_kind(link, pose, planes)
    else:
        kind = _geom_kind(parse, geom)
        normal = _plane_normal(parse, geom, what) if kind == "plane" else _UP
    mesh = geom["vmesh" if visual else "mesh"]
    if kind == "plane":
        vertices, faces = _square(normal, parse.plane_half_m)
    else:
        arrays = parse.description.arrays
        shapes = mesh["geometry"]
        vertices = arrays.floats(shapes["verts"], (None, 3), f"{what} vertices")
        faces = arrays.faces(shapes["faces"], len(vertices), f"{what} faces")
        if not len(faces):
            raise DescriptionError(f"{what} has no face")
    rotation = matrices_from_quaternions(pose[3:], scalar_first=True)
    placed = pose[:3] + vertices @ rotation.T
    rgba = _rgba(link, mesh, visual, link.entity)
    return LinkMesh(link.index, label, kind, placed, faces, rgba, link.entity)


def _planes(parse: _Parse, link: LinkEntry) -> list[_Plane]:
    """Return the link's collision planes: the visual geoms at their pose are planes."""
    planes = []
    for geom in link.data.get("geoms") or []:
        try:
            if _geom_kind(parse, geom) == "plane":
                pose = _geom_pose(parse, geom, "plane")
                planes.append((pose, _plane_normal(parse, geom, "plane")))
        except (FsrError, *DAMAGE_ERRORS):
            continue
    return planes


def _geom_meshes(
    parse: _Parse, link: LinkEntry, visual: bool, stand_in: bool
) -> list[LinkMesh]:
    """Return a link's visual or collision meshes, noting failures (not stand-ins)."""
    geoms = link.data.get("vgeoms" if visual else "geoms") or []
    if not isinstance(geoms, list):
        if not stand_in:
            parse.fail(link.name, "its geoms are not a list")
        return []
    planes = _planes(parse, link) if visual and geoms else []
    found = []
    for number, geom in enumerate(geoms):
        try:
            mesh = _one_mesh(parse, link, geom, visual, planes)
        except FsrError as exc:
            if not stand_in:
                parse.fail(link.name, exc.reason)
            continue
        except DAMAGE_ERRORS as exc:
            if not stand_in:
                parse.fail(link.name, f"geom {number} ({type(exc).__name__})")
            continue
        name = f"{mesh.name}{number}"
        found.append(dataclasses.replace(mesh, name=name, stand_in=stand_in))
    return found


def _link_meshes(parse: _Parse, link: LinkEntry) -> None:
    """Add a link's visual meshes, its collision ones standing in; else collision."""
    visual = _geom_meshes(parse, link, visual=True, stand_in=False)
    parse.meshes.extend(visual)
    parse.meshes.extend(_geom_meshes(parse, link, visual=False, stand_in=bool(visual)))


def link_meshes(
    description: Description, plane_half_m: float
) -> tuple[list[LinkMesh], list[str]]:
    """Return every link's drawable meshes (link frame) and notes on what failed.

    A link gives its visual meshes and, standing in for them, its collision
    ones (:attr:`LinkMesh.stand_in`); a link without a readable visual mesh
    gives its collision meshes alone. Which are drawn is the budget's choice
    (:func:`fsr_core.sources.genesis.mesh_budget.place_meshes`).
    """
    parse = _Parse(description, plane_half_m)
    for link in description.links:
        _link_meshes(parse, link)
    notes = []
    if parse.failed:
        notes.append(
            f"{parse.failed} geoms of the scene description are not drawn ("
            + "; ".join(parse.reasons)
            + ("; ..." if parse.failed > len(parse.reasons) else "")
            + ")"
        )
    return parse.meshes, notes


def plane_half_size(positions_m: FloatArray) -> float:
    """Return the half side of the squares drawn for planes, sized to the scene.

    ``positions_m`` are the environment-local positions of the links that are
    not planes, over time: the square reaches a little past their spread, so
    it lies under everything that moves without reaching behind the viewer.
    """
    points = positions_m.reshape(-1, 3)
    points = points[np.isfinite(points).all(axis=1)]
    if not len(points):
        return 0.5
    spread = float(np.ptp(points, axis=0).max())
    reach = float(np.abs(points).max())
    return max(0.25, 0.6 * max(spread, reach) + 0.15)
