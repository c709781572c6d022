"""The episode's MJCF with the meshes it draws, to embed in a replay's FSR file.

An episode's ``model_file`` names its meshes and textures by absolute paths
of the robosuite that recorded it. The replay embeds the files with the
model so the FSR file draws its robot on a machine without robosuite:

* each mesh file is found where the MJCF names it, else by its part after
  ``robosuite/models/assets/`` in the robosuite that ran the replay (the
  worker's ``assets_root``), else in one installed here
  (:mod:`fsr_core.robots.robosuite_assets`);
* it is read (trimesh, :func:`fsr_core.robots.meshes.read_mesh`) and stored
  as MuJoCo's binary ``.msh`` (float32 vertices, shared, and int32
  triangles): the Panda's meshes are 40 MB of OBJ and STL text and 3.4 MB
  so, the same triangles MuJoCo reads from the originals;
* textures are left out (the viewer draws materials by their colour): each
  ``<texture>`` with a file goes, and the materials naming it lose their
  ``texture``;
* the ``file`` attributes are rewritten to the embedded names, relative to
  the compiler's ``meshdir`` as MuJoCo resolves them.

When a file cannot be found or read, the MJCF is embedded alone, as
recorded, and the reason is given.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

import numpy as np

from fsr_core.robots.meshes import MeshRefusedError, read_mesh
from fsr_core.robots.robosuite_assets import assets_suffix, local_assets_roots
from fsr_core.simulation.model_files import ModelFiles

__all__ = ["EmbeddedModel", "portable_model"]

MESH_FOLDER: Final = "robosuite"
"""Where the embedded meshes go, inside the compiler's mesh folder."""
_READ_AS_MESH: Final = (".stl", ".obj", ".ply")
_DIRECTORY_OF: Final = {"mesh": "meshdir", "skin": "meshdir", "hfield": "texturedir"}


@dataclass(frozen=True)
class EmbeddedModel:
    """The model files to embed, and what became of the files the MJCF names."""

    files: ModelFiles
    meshes: int
    """Mesh files embedded (0: the MJCF alone)."""
    mesh_bytes: int
    textures_left_out: int
    note: str
    """Why the meshes are not embedded (empty when they are)."""

    def summary(self) -> dict[str, object]:
        """Return the ``robosuite.embedded_meshes`` metadata."""
        return {
            "meshes": self.meshes,
            "bytes": self.mesh_bytes,
            "format": "msh" if self.meshes else "",
            "textures_left_out": self.textures_left_out,
            "note": self.note,
        }


def msh_bytes(vertices: np.ndarray, faces: np.ndarray) -> bytes:
    """Return MuJoCo's binary ``.msh`` of a triangle mesh (no normals, no UVs).

    Four int32 counts (vertices, normals, texture coordinates, faces), then
    float32 ``x y z`` per vertex and int32 indices per triangle.
    """
    points, inverse = np.unique(
        np.asarray(vertices, dtype=np.float32), axis=0, return_inverse=True
    )
    triangles = inverse.reshape(-1)[np.asarray(faces, dtype=np.int64)]
    header = np.array([len(points), 0, 0, len(triangles)], dtype=np.int32)
    return (
        header.tobytes()
        + np.ascontiguousarray(points, dtype="<f4").tobytes()
        + np.ascontiguousarray(triangles, dtype="<i4").tobytes()
    )


def _located(name: str, roots: tuple[Path, ...]) -> Path | None:
    """Return the file ``name`` names: as named, else in a robosuite's assets."""
    path = Path(name)
    if path.is_absolute() and path.is_file():
        return path
    suffix = assets_suffix(name)
    if suffix is None:
        return None
    for root in roots:
        if (root / suffix).is_file():
            return root / suffix
    return None


def _mesh_file(path: Path) -> bytes:
    """Return mesh file ``path`` as ``.msh`` bytes.

    Raises
    ------
    MeshRefusedError
        trimesh cannot read it, or it is over a mesh budget.
    """
    parts = read_mesh(path)
    offsets = np.cumsum([0] + [len(part.vertices_m) for part in parts[:-1]])
    vertices = np.concatenate([part.vertices_m for part in parts])
    faces = np.concatenate(
        [part.faces + offset for part, offset in zip(parts, offsets, strict=True)]
    )
    return msh_bytes(vertices, faces)


def _drop_textures(root: ET.Element) -> int:
    """Remove the textures read from files; return how many went."""
    dropped: set[str] = set()
    for parent in root.iter():
        for child in list(parent):
            if child.tag == "texture" and any(
                key.startswith("file") for key in child.attrib
            ):
                dropped.add(child.get("name", ""))
                parent.remove(child)
    for material in root.iter("material"):
        if material.get("texture") in dropped:
            del material.attrib["texture"]
    return len(dropped)


def _compiler_dirs(root: ET.Element) -> dict[str, str]:
    dirs = {"meshdir": "", "texturedir": ""}
    for compiler in root.iter("compiler"):
        for key in dirs:
            value = compiler.get(key, compiler.get("assetdir"))
            if value is not None:
                dirs[key] = value
    return dirs


def _alone(files: ModelFiles, note: str) -> EmbeddedModel:
    return EmbeddedModel(files, 0, 0, 0, note)


def portable_model(
    entry: str, model_file: bytes, assets_root: Path | None
) -> EmbeddedModel:
    """Return ``model_file`` as embedded model ``entry`` with the meshes it names.

    ``assets_root`` is the assets folder of the robosuite that replayed the
    episode (``None``: unknown; robosuites installed here are looked in).
    """
    alone = ModelFiles(entry, {entry: model_file})
    if b"<!DOCTYPE" in model_file:
        return _alone(alone, "the model_file has a document type: embedded alone")
    try:
        root = ET.fromstring(model_file)
    except ET.ParseError as exc:
        return _alone(alone, f"the model_file is not XML ({exc}): embedded alone")
    roots = ((assets_root,) if assets_root is not None else ()) + local_assets_roots()
    textures = _drop_textures(root)
    dirs = _compiler_dirs(root)
    files: dict[str, bytes] = {}
    mesh_bytes = 0
    for element in root.iter():
        name = element.get("file")
        if not name or element.tag not in _DIRECTORY_OF:
            continue
        path = _located(name, roots)
        if path is None:
            return _alone(alone, f"{name} is nowhere here: the MJCF embedded alone")
        inner = assets_suffix(name) or path.name
        try:
            if element.tag == "mesh" and path.suffix.lower() in _READ_AS_MESH:
                data, inner = _mesh_file(path), f"{inner}.msh"
                mesh_bytes += len(data)
            else:
                data = path.read_bytes()
        except ImportError:
            return _alone(
                alone,
                "meshes not embedded: reading them needs trimesh "
                "(pip install 'fsr-viewer[robots]')",
            )
        except (MeshRefusedError, OSError) as exc:
            return _alone(alone, f"meshes not embedded: {exc}")
        embedded = f"{MESH_FOLDER}/{inner}"
        element.set("file", embedded)
        folder = dirs[_DIRECTORY_OF[element.tag]]
        files[(PurePosixPath(folder) / embedded).as_posix()] = data
    text = ET.tostring(root, encoding="unicode").encode("utf-8")
    meshes = len(files)
    return EmbeddedModel(
        ModelFiles(entry, {entry: text, **files}), meshes, mesh_bytes, textures, ""
    )
